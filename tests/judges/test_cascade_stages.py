"""A three-stage cascade through the CLI: rules, a model on the Messages wire, a model on the
OpenAI-compatible wire, each stage calibrated. The servers' request logs show each stage asked
about exactly the cases the stages before it left; resume, replay and error verdicts behave as
for any judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from judge_runner.calibration import Calibration, judge_config_hash, save
from judge_runner.cases import Dataset
from judge_runner.cli import app
from judge_runner.core import Label
from judge_runner.judges import JudgeOptions, build_judge
from judge_runner.judges.cascade import CascadeSettings, make_judge, stage_options
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.registry import check_options
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from tests.casebuilder import GOOD_RUN, build_case, mixed_certainty_dataset
from tests.fakeapi import FakeChatServer, FakeMessagesServer, ReceivedRequest, http_error, reply
from tests.fakeapi import tool_use as tool
from tests.fakeapi.server import Scripted

MODEL_A = "anthropic:model-a"
MODEL_B = "openai:model-b"
STAGES = f"rules,direct:{MODEL_A},direct:{MODEL_B}"
RETRY = json.dumps({"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1})
# stage 2 is sure of a1/a2, unsure of the b cases (they go on), fails on err (an error verdict)
# stage 3 is sure of b1/b2 and unsure of b3 (it abstains: the last stage is calibrated too)
STAGE2 = {"a1": ("pass", 0.95), "a2": ("fail", 0.92), "b1": ("pass", 0.6),
          "b2": ("fail", 0.55), "b3": ("pass", 0.7)}
STAGE3 = {"b1": ("pass", 0.97), "b2": ("fail", 0.91), "b3": ("fail", 0.6)}
LABELS = {"a1": Label.PASS, "a2": Label.FAIL, "b1": Label.PASS, "b2": Label.FAIL,
          "b3": Label.FAIL, "err": Label.PASS}


def _case_of(request: ReceivedRequest) -> str:
    found = re.search(r"# Case (\S+)", json.dumps(request.body["messages"]))
    assert found is not None
    return found.group(1).rstrip("\\n").split("\\")[0]


def _answer(table: dict[str, tuple[str, float]]) -> Any:
    def respond(request: ReceivedRequest) -> Scripted:
        case_id = _case_of(request)
        if case_id == "err":
            return http_error(500)
        decision, confidence = table[case_id]
        return reply(tool("submit_verdict", {"decision": decision, "confidence": confidence,
                                             "rationale": f"{case_id}: looked at it"}))
    return respond


def _dataset(root: Path) -> Path:
    mixed_certainty_dataset(root)  # sure-pass/sure-fail: the rules stage decides them
    for case_id, label in LABELS.items():
        build_case(root, GOOD_RUN, case_id=case_id, task=f"task-{case_id}", label=label)
    for unsure in ("unsure-pass", "unsure-fail"):  # keep the dataset to the cases above
        import shutil
        shutil.rmtree(root / "cases" / unsure)
    lines = [line for line in (root / "labels.jsonl").read_text().splitlines()
             if "unsure-" not in line]
    (root / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _calibration(judge: str, config: dict[str, Any], threshold: float | None) -> Calibration:
    return Calibration(judge=judge, config_hash=judge_config_hash(judge, config), alpha=0.2,
                       delta=0.1, threshold=threshold, n=40,
                       coverage=0.5 if threshold is not None else 0.0,
                       dev_agreement=0.9 if threshold is not None else None)


def _calibrations(tmp: Path, ds: Path, stage2: float | None = 0.9) -> list[Path]:
    rules = RulesJudge(default_skill_dir(), allow_abstain=True)
    seen = {c: rules.judge(Dataset(ds).case(c), tmp / "probe" / c).confidence
            for c in Dataset(ds).case_ids()}
    sure = min(v for c, v in seen.items() if c.startswith("sure-") and v is not None)
    assert all(v is not None and v < sure for c, v in seen.items() if not c.startswith("sure-"))
    files = []
    for name, judge, config, threshold in [
        ("rules", "rules", rules.config(), sure),
        ("a", "direct", _direct(MODEL_A).config(), stage2),
        ("b", "direct", _direct(MODEL_B).config(), 0.9),
    ]:
        path = tmp / f"{name}.json"
        save(_calibration(judge, config, threshold), path)
        files.append(path)
    return files


def _direct(model: str) -> Any:
    return build_judge("direct", JudgeOptions(model=model, base_url="http://127.0.0.1:9"))


def _eval(ds: Path, run_dir: Path, files: list[Path], *extra: str) -> Result:
    """The eval command, in process (the servers and the SDKs are as real either way)."""
    cmd = ["eval", str(ds), "--judge", "cascade", "-o", f"stages={STAGES}", "-o",
           f"retry={RETRY}", "-o", "timeout_s=5", "--run-dir", str(run_dir), "--no-progress"]
    for path in files:
        cmd += ["--calibration", str(path)]
    return CliRunner().invoke(app, [*cmd, *extra])


def _records(run_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (run_dir / "verdicts.jsonl").read_text().splitlines()
    return {r["case_id"]: r for r in map(json.loads, lines)}


def test_each_stage_gets_exactly_what_the_stages_before_it_left(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "ds")
    files = _calibrations(tmp_path, ds)
    messages, chat = FakeMessagesServer().start(), FakeChatServer().start()
    messages.responder, chat.responder = _answer(STAGE2), _answer(STAGE3)
    urls = json.dumps({"anthropic": messages.base_url, "openai": chat.base_url})
    run_dir = tmp_path / "run"
    try:
        done = _eval(ds, run_dir, files, "-o", f"base_urls={urls}")
        assert done.exit_code == 0, done.output
        asked_a = sorted(_case_of(r) for r in messages.requests)
        asked_b = sorted(_case_of(r) for r in chat.requests)
        assert asked_a == ["a1", "a2", "b1", "b2", "b3", "err"]  # all the rules stage left
        assert asked_b == ["b1", "b2", "b3"]  # all stage 2 left undecided, not its error
        again = _eval(ds, run_dir, files, "-o", f"base_urls={urls}")  # resume: nothing asked
        assert again.exit_code == 0, again.output
        assert len(messages.requests) == 6 and len(chat.requests) == 3
    finally:
        messages.stop()
        chat.stop()

    records = _records(run_dir)
    stage = {c: r["verdict"]["details"]["stage"] for c, r in records.items()}
    assert stage == {"sure-pass": "rules", "sure-fail": "rules", "a1": f"direct:{MODEL_A}",
                     "a2": f"direct:{MODEL_A}", "err": f"direct:{MODEL_A}",
                     "b1": f"direct:{MODEL_B}", "b2": f"direct:{MODEL_B}",
                     "b3": f"direct:{MODEL_B}"}
    decisions = {c: r["decision"] for c, r in records.items()}
    assert decisions == {"sure-pass": "pass", "sure-fail": "fail", "a1": "pass", "a2": "fail",
                         "err": "error", "b1": "pass", "b2": "fail", "b3": "abstain"}
    assert records["b1"]["verdict"]["confidence"] == 0.97
    ran = [s["stage"] for s in records["b3"]["verdict"]["details"]["stages"]]
    assert ran == ["rules", f"direct:{MODEL_A}", f"direct:{MODEL_B}"]
    assert records["b1"]["verdict"]["usage"]["calls"] == 2  # both model stages are paid for

    summary = json.loads((run_dir / "metrics.json").read_text())
    figures = summary["stages"]["stages"]
    assert {k: (v["n"], v["n_seen"], v["n_decided"], v["usage"]["calls"],
                v["usage"]["failed_calls"]) for k, v in figures.items()} == {
        "rules": (2, 8, 2, 0, 0), f"direct:{MODEL_A}": (3, 6, 2, 5, 1),
        f"direct:{MODEL_B}": (3, 3, 2, 3, 0)}
    assert summary["stages"]["last_stage"] == f"direct:{MODEL_B}"
    assert summary["stages"]["model_tokens_all"] is not None
    guarantee = summary["guarantee"]
    assert guarantee["covers_all_stages"] is True
    assert "exchangeable" in guarantee["statement"] and "α = 0.2" in guarantee["statement"]
    assert guarantee["coverage"] == round(6 / 8, 6) and guarantee["agreement"] == 1.0
    assert set(summary["stage_curves"]) == {"rules", f"direct:{MODEL_A}", f"direct:{MODEL_B}"}
    html = (run_dir / "report.html").read_text()
    assert 'id="guarantee-statement"' in html and 'id="risk-coverage-3"' in html

    replayed = _eval(ds, tmp_path / "replay", files, "--replay", str(run_dir),
                     "--base-url", "http://127.0.0.1:9")
    assert replayed.exit_code == 0, replayed.output
    assert {c: r["decision"] for c, r in _records(tmp_path / "replay").items()} == decisions


def test_a_stage_whose_calibration_has_no_threshold_is_never_asked(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "ds")
    files = _calibrations(tmp_path, ds, stage2=None)
    messages, chat = FakeMessagesServer().start(), FakeChatServer().start()
    messages.responder, chat.responder = _answer(STAGE2), _answer(STAGE3 | {
        "a1": ("pass", 0.95), "a2": ("fail", 0.95)})
    urls = json.dumps({"anthropic": messages.base_url, "openai": chat.base_url})
    try:
        done = _eval(ds, tmp_path / "run", files, "-o", f"base_urls={urls}")
        assert done.exit_code == 0, done.output
        assert messages.requests == []  # it would have abstained on everything: not paid for
        assert sorted(_case_of(r) for r in chat.requests) == [
            "a1", "a2", "b1", "b2", "b3", "err"]
    finally:
        messages.stop()
        chat.stop()
    records = _records(tmp_path / "run")
    said = records["a1"]["verdict"]["details"]["stages"]
    assert [(s["stage"], s["decision"]) for s in said] == [
        ("rules", "abstain"), (f"direct:{MODEL_A}", "abstain"), (f"direct:{MODEL_B}", "pass")]
    assert said[1]["usage"]["calls"] == 0
    unasked = json.loads((tmp_path / "run" / "cases" / "a1" / "stages" / said[1]["dir"].split(
        "/")[-1] / "verdict.json").read_text())
    assert unasked["details"]["calibration"]["asked"] is False
    assert "without asking the judge" in unasked["rationale"]
    assert records["err"]["decision"] == "error"  # the server's 500 at stage 3


def test_a_forced_last_stage_is_said_to_carry_no_guarantee(tmp_path: Path) -> None:
    ds = _dataset(tmp_path / "ds")
    files = _calibrations(tmp_path, ds)[:2]
    messages, chat = FakeMessagesServer().start(), FakeChatServer().start()
    messages.responder, chat.responder = _answer(STAGE2), _answer(STAGE3)
    urls = json.dumps({"anthropic": messages.base_url, "openai": chat.base_url})
    try:
        done = _eval(ds, tmp_path / "run", files, "-o", f"base_urls={urls}")
    finally:
        messages.stop()
        chat.stop()
    assert done.exit_code == 0, done.output
    records = _records(tmp_path / "run")
    assert records["b3"]["decision"] == "fail"  # forced, below any threshold
    summary = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert summary["guarantee"]["covers_all_stages"] is False
    assert "covers only the calibrated stages" in summary["guarantee"]["statement"]


def test_cascade_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(JudgeConfigError, match="not the last and has no calibration"):
        make_judge(JudgeOptions(model="m", base_url="http://127.0.0.1:9",
                                extra={"stages": f"direct:{MODEL_A},direct:{MODEL_B}"}))
    with pytest.raises(JudgeConfigError, match="is not one of"):
        make_judge(JudgeOptions(model="m", extra={"stages": "rules,oracle"}))
    with pytest.raises(JudgeConfigError, match="at least two"):
        make_judge(JudgeOptions(model="m", extra={"stages": "rules"}))
    path = tmp_path / "other.json"
    save(_calibration("direct", {"model": "another"}, 0.9), path)
    with pytest.raises(ValueError, match="was made for the direct judge with configuration"):
        make_judge(JudgeOptions(model=MODEL_A, base_url="http://127.0.0.1:9",
                                extra={"stages": f"rules,direct:{MODEL_A}"},
                                calibration=[path, path]))
    with pytest.raises(JudgeConfigError, match="take 3 calibration files"):
        make_judge(JudgeOptions(model=MODEL_A, base_url="http://127.0.0.1:9",
                                extra={"stages": STAGES}, calibration=[path]))


def test_each_stage_gets_the_knobs_its_judge_takes(tmp_path: Path) -> None:
    """`-o annotators` (direct's) beside an agent stage goes to the direct stage only; a knob no
    stage takes is refused by name, before any case."""
    examples = _dataset(tmp_path / "examples")
    settings = CascadeSettings(stages=f"rules,direct:{MODEL_A},agent:{MODEL_B}")
    rest = JudgeOptions(model="m", base_url="http://127.0.0.1:9",
                        extra={"annotators": 3, "examples": str(examples), "max_turns": 5})
    shares = dict(stage_options(settings, rest))
    assert shares["direct"].extra == {"annotators": 3, "examples": str(examples)}
    assert shares["agent"].extra == {"examples": str(examples), "max_turns": 5}
    for name, share in shares.items():
        check_options(name, share)  # each share is valid for its judge
    with pytest.raises(JudgeConfigError, match=r"-o colour: no stage of this cascade takes it"):
        stage_options(settings, rest.model_copy(update={"extra": {"colour": "red"}}))
