"""`calibrate` and `--calibration` with the rules judge on the 26 real shared trials.

The rules judge's forced verdicts are worth little on tasks it was not designed on, so the
promise to check is the weak one: calibrated at α = 0.2, δ = 0.1, it either decides with at
least 0.8 agreement or abstains. The combination is fitted on half of the tasks and the
threshold chosen on the other half; the figures are printed for the record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.calibration import Calibration, load
from judge_runner.cli import app

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str, code: int = 0) -> str:
    """The command's output with rich's box drawing and line wrapping taken out."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return re.sub(r"[\s│╭╮╰╯─]+", " ", result.output)


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
    assert fit is not None and fit.fit_tasks
    assert not set(fit.fit_tasks) & set(calibration.threshold_tasks)  # kept apart
    assert calibration.n + calibration.n_left_out == 26
    if calibration.threshold is None:
        assert calibration.coverage == 0 and "no threshold passes" in said
    tests = [(t.threshold, t.n, t.errors) for t in calibration.tests]
    print(f"threshold {calibration.threshold}, n {calibration.n}, dev coverage "
          f"{calibration.coverage}, tests {tests}")

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
