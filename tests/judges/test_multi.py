"""Multi-judge majority, tie rule and member errors, through the fake Messages API."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.judges import Decision
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.multi import MultiJudge, make_judge
from judge_runner.judges.registry import JudgeOptions
from tests.fakeapi import FakeMessagesServer, http_error, reply, tool_use


def vote(decision: str) -> object:
    return reply(tool_use("submit_verdict", {"decision": decision, "rationale": decision}))


def _judge(api: FakeMessagesServer, models: list[str]) -> MultiJudge:
    return make_judge(JudgeOptions(models=models, base_url=api.base_url, extra={
        "retry": {"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1}}))


@pytest.mark.parametrize(
    ("votes", "decision", "tie"),
    [(["pass", "pass", "fail"], Decision.PASS, False),
     (["fail", "pass", "fail"], Decision.FAIL, False),
     (["pass", "fail"], Decision.FAIL, True)],
)
def test_majority_and_tie(fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path,
                          votes: list[str], decision: Decision, tie: bool) -> None:
    fake_api.push(*[vote(v) for v in votes])  # type: ignore[arg-type]
    models = [f"model-{i}" for i in range(len(votes))]
    verdict = _judge(fake_api, models).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == decision and verdict.details["tie"] is tie
    assert [b["model"] for b in fake_api.bodies] == models
    assert [v["decision"] for v in verdict.details["votes"]] == votes
    assert verdict.usage.calls == len(votes)
    assert (tmp_path / "o" / "members" / "1-model-0" / "transcript.jsonl").is_file()


def test_member_errors_are_not_votes(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(http_error(400), vote("pass"), http_error(400))  # type: ignore[arg-type]
    verdict = _judge(fake_api, ["a", "b", "c"]).judge(dataset.case("c-pass"), tmp_path / "o")
    assert verdict.decision == Decision.PASS and verdict.score == 1.0
    fake_api.push(http_error(400), http_error(400))
    none = _judge(fake_api, ["a", "b"]).judge(dataset.case("c-pass"), tmp_path / "p")
    assert none.decision == Decision.ERROR and "no member decided" in (none.error or "")


def test_needs_two_members(fake_api: FakeMessagesServer) -> None:
    with pytest.raises(JudgeConfigError, match="at least two"):
        _judge(fake_api, ["only"])
