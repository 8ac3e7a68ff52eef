"""`judge-runner judge` through the real CLI, the SDK and the fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cases import Dataset
from judge_runner.cli import app
from tests import casebuilder
from tests.conftest import REPO
from tests.fakeapi import FakeMessagesServer, http_error
from tests.judges import sessions

RETRY = json.dumps({"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 2})


def _args(case: Path, out: Path, *extra: str) -> list[str]:
    return ["judge", str(case), "--judge", "agent", "--skill", str(REPO / "judgeskills" / "v1"),
            "--model", "claude-test", "--sandbox", "local", "--out", str(out),
            "-o", f"retry={RETRY}", "-o", "timeout_s=2", *extra]


def test_judge_prints_plan_log_verdict_and_replays(
    dataset: Dataset, tmp_path: Path
) -> None:
    server = FakeMessagesServer().start()
    server.push(*sessions.good_session(41))
    case = dataset.case("c-fail").root
    runner = CliRunner()
    live = runner.invoke(app, _args(case, tmp_path / "live", "--base-url", server.base_url))
    server.stop()
    assert live.exit_code == 0, live.output
    for needle in ("# Inspection plan", "## P1: out.json holds the right total",
                   "- I1 [P1] refutes critical:", "evidence: tu_bash_artifact verified",
                   "decision: fail", "citations: I1, I2", "usage: 6 calls"):
        assert needle in live.output, needle

    replay = runner.invoke(app, _args(case, tmp_path / "again", "--replay", str(tmp_path / "live"),
                                      "--base-url", "http://127.0.0.1:9"))
    assert replay.exit_code == 0, replay.output
    strip = [ln for ln in live.stdout.splitlines() if not ln.startswith("products:")]
    assert [ln for ln in replay.stdout.splitlines() if not ln.startswith("products:")] == strip


def test_error_verdict_exits_1(fake_api: FakeMessagesServer, dataset: Dataset,
                               tmp_path: Path) -> None:
    fake_api.push(http_error(500), http_error(500))
    result = CliRunner().invoke(app, _args(dataset.case("c-fail").root, tmp_path / "o",
                                           "--base-url", fake_api.base_url))
    assert result.exit_code == 1
    assert "decision: error" in result.output and "model call failed" in result.output


def test_agent_requires_skill_choice(dataset: Dataset, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["judge", str(dataset.case("c-fail").root),
                                      "--model", "m", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "--skill" in result.output


def test_not_a_case_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["judge", str(tmp_path), "--skill", "none", "--model", "m"])
    assert result.exit_code == 2 and "no case.json" in result.output


def test_an_unsafe_package_is_not_judged(fake_api: FakeMessagesServer, dataset: Dataset,
                                         tmp_path: Path) -> None:
    case = dataset.case("c-fail").root
    casebuilder.point_artifact_at(case, "../../../labels.jsonl")
    result = CliRunner().invoke(app, _args(case, tmp_path / "o", "--base-url",
                                           fake_api.base_url))
    assert result.exit_code == 1, result.output
    assert "invalid case package, not judged" in result.output
    assert list(fake_api.requests) == []
