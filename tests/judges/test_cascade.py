"""The cascade judge end to end through the CLI, the SDK and the scripted Messages server:
the model is asked about exactly the cases the rules judge abstains on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge_runner.cases import Dataset
from judge_runner.judges.briefing import BRIEFING_TITLE
from judge_runner.judges.cascade import make_judge
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.registry import JUDGES, JudgeOptions
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from tests.casebuilder import SURE, UNSURE, mixed_certainty_dataset
from tests.conftest import REPO
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, http_error, reply
from tests.fakeapi import tool_use as tool
from tests.fakeapi.server import Scripted

RETRY = json.dumps({"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1})
def _case_of(request: ReceivedRequest) -> str:
    content = request.body["messages"][0]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    return str(text.splitlines()[0].removeprefix("# Case ").strip())


def _answers(request: ReceivedRequest) -> Scripted:
    case_id = _case_of(request)
    decision = "pass" if case_id == "unsure-pass" else "fail"
    return reply(tool("submit_verdict", {"decision": decision,
                                         "rationale": f"checked {case_id} myself"}))


def _eval(ds: Path, run_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "judge_runner.cli", "eval", str(ds), "--judge", "cascade",
           "-o", "second=direct", "--model", "claude-test", "--sandbox", "none",
           "-o", f"retry={RETRY}", "-o", "timeout_s=5", "--run-dir", str(run_dir),
           "--no-progress", *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)


def _records(run_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (run_dir / "verdicts.jsonl").read_text().splitlines()
    return {r["case_id"]: r for r in map(json.loads, lines)}


def test_rules_abstain_exactly_on_the_unsure_cases(tmp_path: Path) -> None:
    ds = mixed_certainty_dataset(tmp_path / "ds")
    judge = RulesJudge(default_skill_dir(), allow_abstain=True)
    decisions = {c: judge.judge(Dataset(ds).case(c), tmp_path / c).decision.value
                 for c in {**SURE, **UNSURE}}
    assert decisions == {"sure-pass": "pass", "sure-fail": "fail", "unsure-pass": "abstain",
                         "unsure-fail": "abstain"}


def test_cascade_calls_the_model_only_for_undecided_cases(tmp_path: Path) -> None:
    ds = mixed_certainty_dataset(tmp_path / "ds")
    server = FakeMessagesServer().start()
    server.responder = _answers
    run_dir = tmp_path / "run"
    try:
        done = _eval(ds, run_dir, "--base-url", server.base_url)
        assert done.returncode == 0, done.stderr
        asked = [_case_of(r) for r in server.requests if r.path.endswith("/messages")]
        assert sorted(asked) == sorted(UNSURE), "one call per undecided case, none for the rest"
        for request in server.requests:
            user = request.body["messages"][0]["content"]
            text = user if isinstance(user, str) else user[0]["text"]
            assert BRIEFING_TITLE in text and "cite only your own inspections" in text
            assert "last_test_passed" in text or "outputs_computed" in text  # the findings

        again = _eval(ds, run_dir, "--base-url", server.base_url)  # resume: all stored
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == len(UNSURE)
    finally:
        server.stop()

    records = _records(run_dir)
    for case_id, label in {**SURE, **UNSURE}.items():
        r = records[case_id]
        assert r["verdict"]["judge"] == "cascade" and r["decision"] == label.value
        assert r["verdict"]["details"]["stage"] == ("rules" if case_id in SURE else "model")
    unsure = records["unsure-pass"]["verdict"]
    assert unsure["rationale"] == "checked unsure-pass myself" and unsure["usage"]["calls"] == 1
    assert unsure["details"]["rules"]["decision"] == "abstain"
    assert (run_dir / "cases" / "unsure-pass" / "stages" / "direct" / "transcript.jsonl").is_file()

    summary = json.loads((run_dir / "metrics.json").read_text())
    assert summary["n_resumed"] == 4 and summary["usage"]["calls"] == 2
    stages = summary["stages"]["stages"]
    assert {k: (v["n"], v["n_decided"], v["correct"], v["usage"]["calls"])
            for k, v in stages.items()} == {"rules": (2, 2, 2, 0), "model": (2, 2, 2, 2)}
    assert stages["rules"]["share"] == 0.5 and stages["model"]["accuracy"] == 1.0
    usage = stages["model"]["usage"]
    tokens = sum(usage[k] for k in ("input_tokens", "cache_creation_input_tokens",
                                    "cache_read_input_tokens", "output_tokens"))
    assert tokens > 0 and summary["stages"]["tokens"] == tokens
    assert summary["stages"]["model_tokens_all"] == 2 * tokens
    assert summary["stages"]["saving"] == 0.5
    html = (run_dir / "report.html").read_text()
    assert 'id="stage-table"' in html and "<td>model</td><td>2</td><td>0.500</td>" in html
    assert "saving 50.0 %" in html

    replayed = _eval(ds, tmp_path / "replay", "--replay", str(run_dir),
                     "--base-url", "http://127.0.0.1:9")
    assert replayed.returncode == 0, replayed.stderr
    assert {c: r["decision"] for c, r in _records(tmp_path / "replay").items()} == \
        {c: r["decision"] for c, r in records.items()}


def test_a_model_error_is_an_error_verdict_not_a_decision(tmp_path: Path) -> None:
    ds = mixed_certainty_dataset(tmp_path / "ds")
    server = FakeMessagesServer().start()
    server.responder = lambda r: (http_error(500) if _case_of(r) == "unsure-fail"
                                  else _answers(r))
    try:
        done = _eval(ds, tmp_path / "run", "--base-url", server.base_url, "-o", "findings=false")
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    for request in server.requests:
        assert BRIEFING_TITLE not in json.dumps(request.body)
    records = _records(tmp_path / "run")
    assert records["unsure-fail"]["decision"] == "error"
    summary = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert summary["metrics"]["n_error"] == 1 and summary["metrics"]["n_decided"] == 3
    assert summary["stages"]["stages"]["model"]["n_error"] == 1


def test_the_cascade_is_registered_and_validates_its_options() -> None:
    assert JUDGES["cascade"] == "judge_runner.judges.cascade:make_judge"
    with pytest.raises(JudgeConfigError, match="not a model judge"):
        make_judge(JudgeOptions(model="m", base_url="http://127.0.0.1:9",
                                extra={"second": "rules"}))
    with pytest.raises(JudgeConfigError, match="findings must be true or false"):
        make_judge(JudgeOptions(model="m", base_url="http://127.0.0.1:9",
                                extra={"findings": "yes"}))
    with pytest.raises(JudgeConfigError, match="needs a model"):
        make_judge(JudgeOptions(base_url="http://127.0.0.1:9"))
