"""`calibrate` with the rules judge: the combination (weights, scale, offset) fitted on the
tasks of one half, the threshold chosen on the other; and `--calibration` on the 26 real shared
trials.

The rules judge's forced verdicts are worth little on tasks it was not designed on, so the
promise to check on the real trials is the weak one: calibrated at α = 0.2, δ = 0.1, it either
decides with at least 0.8 agreement or abstains. The figures are printed for the record.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.calibration import Calibration, load, save
from judge_runner.cli import app
from judge_runner.core import Outcome
from judge_runner.jsonl import write_models
from judge_runner.judges.products import LOG_FILE, read_log
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.spec import CHECKS_FILE, load_rules
from judge_runner.runs.calibrate import calibrate_run
from judge_runner.runs.records import CASES_OUT, load_records
from tests.casebuilder import last_tests_dataset

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str, code: int = 0) -> str:
    """The command's output with rich's box drawing and line wrapping taken out."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return re.sub(r"[\s│╭╮╰╯─]+", " ", result.output)


def judged(tmp_path: Path) -> Path:
    """A rules run over `last_tests_dataset`."""
    dev = tmp_path / "dev"
    invoke("eval", str(last_tests_dataset(tmp_path / "data")), "--judge", "rules", "--run-dir",
           str(dev), "--no-progress")
    return dev


def calibrated_run(dev: Path) -> Calibration:
    skill = default_skill_dir()
    digest = hashlib.sha256((skill / CHECKS_FILE).read_bytes()).hexdigest()
    return calibrate_run(dev, alpha=0.5, delta=0.5, rules=load_rules(skill, known_checks()),
                         rules_sha256=digest)


def flip(dev: Path, case_id: str, check: str) -> None:
    """Turn `check`'s finding in the case's inspection log to the other side."""
    folder = dev / CASES_OUT / case_id
    other = {Outcome.SUPPORTS: Outcome.REFUTES, Outcome.REFUTES: Outcome.SUPPORTS}
    log = [i.model_copy(update={"outcome": other[i.outcome]}) if i.check == check else i
           for i in read_log(folder)]
    write_models(folder / LOG_FILE, log)


def test_the_combination_is_fitted_on_the_fit_tasks_only(tmp_path: Path) -> None:
    dev = judged(tmp_path)
    first = calibrated_run(dev)
    fit = first.rules_fit
    assert fit is not None and fit.weights and fit.prior is not None
    assert not set(fit.fit_tasks) & set(first.threshold_tasks)
    by_task = {r.case_id: r.task for r in load_records(dev)}
    held = sorted(c for c, t in by_task.items() if t in first.threshold_tasks)
    for case_id in held:
        flip(dev, case_id, "last_test_passed")
    second = calibrated_run(dev)
    assert second.rules_fit == fit  # the threshold's cases never reach the fit
    assert second.tests != first.tests  # ...but they are what the threshold is chosen on
    flip(dev, sorted(c for c, t in by_task.items() if t in fit.fit_tasks)[0], "last_test_passed")
    third = calibrated_run(dev)
    assert third.rules_fit is not None
    assert third.rules_fit.weights["last_test_passed"] != fit.weights["last_test_passed"]


def test_the_same_dev_run_gives_a_byte_identical_file(tmp_path: Path) -> None:
    dev = judged(tmp_path)
    save(calibrated_run(dev), tmp_path / "a.json")
    save(calibrated_run(dev), tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_a_case_without_its_inspection_log_is_left_out(tmp_path: Path) -> None:
    dev = judged(tmp_path)
    first = calibrated_run(dev)
    by_task = {r.case_id: r.task for r in load_records(dev)}
    held = sorted(c for c, t in by_task.items() if t in first.threshold_tasks)[0]
    (dev / CASES_OUT / held / LOG_FILE).unlink()
    second = calibrated_run(dev)
    assert (second.n, second.n_left_out) == (first.n - 1, first.n_left_out + 1)
    assert second.rules_fit == first.rules_fit


def test_calibrated_rules_decide_with_agreement_or_abstain(real_dataset: Path,
                                                          tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    invoke("eval", str(real_dataset), "--judge", "rules", "--run-dir", str(dev), "--no-progress")
    out = tmp_path / "calibration.json"
    said = invoke("calibrate", str(dev), "--agreement", "0.8", "--delta", "0.1", "--out",
                  str(out))
    calibration = load(out)
    assert calibration.alpha == 0.2 and calibration.delta == 0.1
    fit = calibration.rules_fit
    assert fit is not None and fit.fit_tasks and fit.weights and fit.prior is not None
    assert not set(fit.fit_tasks) & set(calibration.threshold_tasks)  # kept apart
    again = tmp_path / "again.json"
    invoke("calibrate", str(dev), "--agreement", "0.8", "--delta", "0.1", "--out", str(again))
    assert again.read_bytes() == out.read_bytes()
    assert calibration.n + calibration.n_left_out == 26
    if calibration.threshold is None:
        assert calibration.coverage == 0 and "no threshold passes" in said
    tests = [(t.threshold, t.n, t.errors) for t in calibration.tests]
    print(f"threshold {calibration.threshold}, n {calibration.n}, dev coverage "
          f"{calibration.coverage}, tests {tests}; fit scale {fit.scale}, offset {fit.offset}, "
          f"weights {fit.weights}, support weights {fit.support_weights}")

    applied = tmp_path / "applied"
    invoke("eval", str(real_dataset), "--judge", "rules", "--calibration", str(out),
           "--run-dir", str(applied), "--no-progress")
    rows = [json.loads(line) for line in (applied / "verdicts.jsonl").read_text().splitlines()]
    held = [r for r in rows if r["task"] in calibration.threshold_tasks]
    decided = [r for r in held if r["decision"] in ("pass", "fail")]
    if calibration.threshold is None:
        assert not [r for r in rows if r["decision"] in ("pass", "fail")]
    else:
        assert sum(r["correct"] for r in decided) >= 0.8 * len(decided)
    summary = json.loads((applied / "metrics.json").read_text())
    assert summary["guarantee"]["stages"][0]["calibrated"] is True
    assert "exchangeable" in summary["guarantee"]["statement"] or \
        "No guarantee" in summary["guarantee"]["statement"]
    print(f"held-out tasks: {len(decided)} of {len(held)} decided")


def test_a_calibration_of_another_configuration_is_refused(real_dataset: Path,
                                                           tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    invoke("eval", str(real_dataset), "--judge", "rules", "--run-dir", str(dev), "--no-progress")
    out = tmp_path / "calibration.json"
    invoke("calibrate", str(dev), "--out", str(out))
    said = invoke("eval", str(real_dataset), "--judge", "rules", "--skill",
                  str(REPO / "judgeskills" / "v1"), "--calibration", str(out),
                  "--run-dir", str(tmp_path / "v1"), "--no-progress", code=2)
    assert "was made for the rules judge with configuration" in said
    said = invoke("calibrate", str(dev), "--skill", str(REPO / "judgeskills" / "v1"),
                  "--out", str(tmp_path / "x.json"), code=2)
    assert "another checks.toml" in said
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    said = invoke("eval", str(real_dataset), "--judge", "rules", "--calibration", str(broken),
                  "--run-dir", str(tmp_path / "b"), "--no-progress", code=2)
    assert "is not a calibration file" in said
    assert Calibration.model_validate_json(out.read_text()).judge == "rules"
