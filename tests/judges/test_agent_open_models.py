"""The agent judge against the ways open models misbehave (scripted on the real Messages server):
call ids they cannot see, identical calls over and over, servers that never answer or keep
failing, and conversations that outgrow a small context window."""

from __future__ import annotations

import time
from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.core import Decision
from judge_runner.models.recording import read_transcript
from tests.fakeapi import FakeMessagesServer, Slow, http_error, reply, tool_use
from tests.judges import sessions
from tests.judges.test_agent import agent


def test_every_tool_result_names_its_call_id_in_the_text(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(*sessions.good_session(41))
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    results = [r for body in fake_api.bodies[1:] for r in sessions.raw_tool_results(body)]
    assert len(results) == 5
    for result in results:
        assert result["content"].startswith(f"call id: {result['tool_use_id']}\n")
    # quotes are still verified against the command's own output, not the id line
    assert verdict.details["evidence"] == {"quotes": 2, "verified": 2}


def test_identical_calls_are_nudged_once_then_end_the_session_as_stalled(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(sessions.plan("p1"), sessions.plan("p2"), sessions.plan("p3"),
                  sessions.plan("p4"))
    started = time.monotonic()
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")

    assert verdict.decision == Decision.ERROR
    assert verdict.error == "stalled: 3 identical write_plan calls"
    assert len(fake_api.bodies) == 3  # ended at the third call, not at the 40-turn budget
    second = sessions.tool_results(fake_api.bodies[2])[0]["content"]
    assert "identical to your earlier call p1" in second
    first = sessions.tool_results(fake_api.bodies[1])[0]["content"]
    assert "identical" not in first
    assert verdict.details["repeated_calls"] == 2
    assert time.monotonic() - started < 60  # a hang guard only


def test_a_call_cut_at_the_output_cap_is_refused_with_the_reason(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    # What llama.cpp answers when the cap ends a call it parses from text: the call, with the
    # input it had so far (here none), and stop_reason max_tokens.
    fake_api.push(reply(tool_use("write_plan", {}, "w1"), stop_reason="max_tokens"),
                  *sessions.good_session(41))
    verdict = agent(fake_api, max_output_tokens=300).judge(dataset.case("c-fail"),
                                                           tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    refused = sessions.tool_results(fake_api.bodies[1])[0]
    assert refused["is_error"] is True
    assert "invalid input for write_plan" in refused["content"]
    assert "output cap of 300 tokens and was cut off" in refused["content"]
    # a complete call that is refused for another reason carries no such note
    later = [r for body in fake_api.bodies[2:] for r in sessions.tool_results(body)]
    assert not any("cut off" in r["content"] for r in later)


def test_different_inputs_are_not_repeats(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(sessions.plan("p1"), sessions.bash("echo a", "b1"),
                  sessions.bash("echo b", "b2"), *sessions.inspections(41)[:2],
                  sessions.verdict("fail", ["I1"]))
    verdict = agent(fake_api).judge(dataset.case("c-fail"), tmp_path / "out")
    assert verdict.decision == Decision.FAIL, verdict.error
    assert verdict.details["repeated_calls"] == 0


def test_a_server_that_never_answers_cannot_outlive_the_wall_budget(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    # Before: max_wall_s was checked between turns only, so each of the 4 attempts waited for
    # its full 20 s timeout (80 s and more). Now the case ends at its 3 s budget plus slack.
    fake_api.responder = lambda request: Slow(120)
    judge = agent(fake_api, max_wall_s=3, timeout_s=20)
    started = time.monotonic()
    verdict = judge.judge(dataset.case("c-fail"), tmp_path / "out")
    elapsed = time.monotonic() - started

    assert verdict.decision == Decision.ERROR
    assert verdict.error is not None and verdict.error.startswith("budget exhausted:"), \
        verdict.error
    assert "during a model call" in verdict.error
    assert elapsed < 3 + 5, elapsed  # documented slack is about 1-2 s; generous for CI load
    assert verdict.usage.failed_calls == 1


def test_retries_of_a_call_that_finally_failed_are_counted(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(*[http_error(503) for _ in range(6)])
    out = tmp_path / "out"
    verdict = agent(fake_api, retry={"initial_wait_s": 0, "jitter_s": 0, "max_wait_s": 0,
                                     "max_attempts": 6}).judge(dataset.case("c-fail"), out)

    assert verdict.decision == Decision.ERROR
    assert "failed after 6 attempt(s)" in (verdict.error or "")
    assert verdict.usage.retries == 5  # before: 0, only retries of successful calls counted
    assert verdict.usage.failed_calls == 1
    entries, _ = read_transcript(out / "transcript.jsonl")
    assert [e.attempts for e in entries] == [6]
    assert entries[0].usage.retries == 5


def test_a_conversation_that_outgrows_the_context_ends_with_a_specific_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    # each answer is a command printing 6,000 characters: the third request no longer fits
    fake_api.responder = lambda request: reply(tool_use(
        "bash", {"command": f"python3 -c \"print('x' * 6000)\" # {len(request.body['messages'])}"}))
    verdict = agent(fake_api, max_context_tokens=13000, max_output_tokens=1024).judge(
        dataset.case("c-fail"), tmp_path / "out")

    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("context budget exhausted: the next request is about")
    bodies = fake_api.bodies
    assert 1 <= len(bodies) < 10
    # the per-turn output cap shrinks to what the context has left
    assert bodies[0]["max_tokens"] == 1024
    assert all(b["max_tokens"] <= 1024 for b in bodies)
