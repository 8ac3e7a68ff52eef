"""Several sessions of the agent judge on one case (`-o sessions=k`): each in its own folder and
sandbox with its own example set, the vote share as the confidence, a failed session no vote,
and the whole vote replayed with the server off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge_runner.cases import Dataset
from judge_runner.cli import app
from judge_runner.core import Decision
from judge_runner.judges import shown_folder
from judge_runner.judges.agent import make_judge
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import (
    PLAN_FILE,
    TRANSCRIPT_FILE,
    read_log,
    read_verdict,
)
from judge_runner.judges.registry import JudgeOptions
from judge_runner.view.session import judge_calls
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, Reply, http_error
from tests.judges import sessions
from tests.judges.conftest import leaked
from tests.judges.test_agent import FAST_RETRY, V1, options

EXAMPLES = "# Labelled examples of OTHER runs"
ONE_TRY = {**FAST_RETRY, "max_attempts": 1}


def first_text(request: ReceivedRequest) -> str:
    first = request.body["messages"][0]["content"]
    return first if isinstance(first, str) else str(first[0]["text"])


def by_session(decisions: list[str | None]) -> Any:
    """A responder for sessions told apart by their first message (in the order they arrive):
    session n plans, inspects c-fail and submits decisions[n]; None: its calls fail."""
    firsts: list[str] = []

    def respond(request: ReceivedRequest) -> Reply | object:
        first = first_text(request)
        if first not in firsts:
            firsts.append(first)
        decision = decisions[firsts.index(first)]
        if decision is None:
            return http_error(500)
        turn = sum(1 for m in request.body["messages"] if m["role"] == "assistant")
        script = [sessions.plan(), *sessions.inspections(41),
                  sessions.verdict(decision, ["I1", "I2"])]
        return script[turn]

    return respond


@pytest.fixture
def pool(tmp_path: Path) -> Dataset:
    """The judged sum-numbers cases c-fail and c-pass among the labelled example pool."""
    return casebuilder.example_pool(tmp_path / "data", {"c-fail": 41, "c-pass": 42})


def test_three_sessions_vote_in_their_own_folders_and_replay(
    fake_api: FakeMessagesServer, pool: Dataset, tmp_path: Path
) -> None:
    fake_api.responder = by_session(["pass", "fail", "pass"])
    judge = make_judge(options(fake_api, sessions=3, examples=str(pool.root)))
    out = tmp_path / "out"
    verdict = judge.judge(pool.case("c-fail"), out)

    assert verdict.decision is Decision.PASS and verdict.confidence == round(2 / 3, 6)
    assert verdict.details["votes"] == ["pass", "fail", "pass"]
    assert verdict.details["shown"] == 1 and verdict.details["failed"] == 0
    assert verdict.rationale.startswith("2 of 3 sessions: pass")
    assert verdict.usage.calls == 3 * 6 and verdict.details["turns"] == 18
    assert read_verdict(out) == verdict  # what verdict.json (and so the store) holds
    assert not (out / TRANSCRIPT_FILE).exists()
    for n, decision in enumerate(["pass", "fail", "pass"], start=1):
        folder = out / f"session-{n}"
        assert read_verdict(folder).decision.value == decision
        assert (folder / TRANSCRIPT_FILE).is_file()
    assert (out / PLAN_FILE).read_text() == (out / "session-1" / PLAN_FILE).read_text()
    assert read_log(out) == read_log(out / "session-1")
    assert verdict.citations == ["I1", "I2"]
    # the viewer links the citations to the calls of the session whose log is shown
    assert shown_folder(out, verdict) == out / "session-1"
    calls, _ = judge_calls(shown_folder(out, verdict) / TRANSCRIPT_FILE)
    assert [c.id for c in calls] == ["tu_bash_artifact", "tu_bash_final"]

    firsts = list(dict.fromkeys(first_text(r) for r in fake_api.requests))
    assert len(firsts) == 3  # three example sets, one per session
    for first in firsts:
        case_part, examples = first.split(EXAMPLES)
        assert case_part.startswith("# Case ") and "c-fail" in case_part.splitlines()[0]
        assert "final words of" in examples and "Sum the numbers" not in examples
        assert examples.rstrip().endswith("call write_plan.")
    # no label record of the pool, the judged case's included, reached the model
    assert leaked(casebuilder.secrets_of(pool.root), list(fake_api.requests)) == []

    assert judge.config()["sessions"] == 3 and "examples_sha256" in judge.config()
    assert "sessions" not in make_judge(options(fake_api)).config()

    replayer = make_judge(options(None, sessions=3, examples=str(pool.root))
                          .model_copy(update={"replay": out}))
    again = replayer.judge(pool.case("c-fail"), tmp_path / "again")
    assert again.decision is Decision.PASS and again.details["votes"] == verdict.details["votes"]


def test_a_failed_session_is_no_vote_and_a_tie_is_fail(
    fake_api: FakeMessagesServer, pool: Dataset, tmp_path: Path
) -> None:
    fake_api.responder = by_session(["pass", None, "fail"])
    judge = make_judge(options(fake_api, sessions=3, examples=str(pool.root), retry=ONE_TRY))
    verdict = judge.judge(pool.case("c-fail"), tmp_path / "out")
    assert verdict.decision is Decision.FAIL and verdict.confidence == round(1 / 3, 6)
    assert verdict.details["failed"] == 1 and verdict.details["shown"] == 3
    assert verdict.details["votes"][1].startswith("model call failed")
    assert verdict.details["sessions"][1]["decision"] == "error"
    assert read_log(tmp_path / "out") == read_log(tmp_path / "out" / "session-3")


def test_every_session_failing_is_an_error_naming_each(
    fake_api: FakeMessagesServer, pool: Dataset, tmp_path: Path
) -> None:
    fake_api.responder = by_session([None, None])
    judge = make_judge(options(fake_api, sessions=2, examples=str(pool.root), retry=ONE_TRY))
    verdict = judge.judge(pool.case("c-fail"), tmp_path / "out")
    assert verdict.decision is Decision.ERROR and verdict.error is not None
    assert verdict.error.startswith("session 1: model call failed")
    assert "session 2: model call failed" in verdict.error


def test_sessions_without_examples_are_refused(pool: Dataset, tmp_path: Path) -> None:
    with pytest.raises(JudgeConfigError, match="-o sessions: 3 sessions at temperature 0"):
        make_judge(JudgeOptions(model="m", sandbox="local", skill=V1,
                                extra={"sessions": 3}))
    result = CliRunner().invoke(app, [
        "judge", str(pool.case("c-fail").root), "--judge", "agent", "--skill", "none",
        "--model", "claude-test", "--sandbox", "local", "--base-url", "http://127.0.0.1:9",
        "--out", str(tmp_path / "o"), "-o", "sessions=3"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "-o examples=" in lines[0]
    assert not (tmp_path / "o").exists()
