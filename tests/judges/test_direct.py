"""Direct judge end to end through the SDK and the fake Messages API."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.judges import Decision
from judge_runner.judges.direct import make_judge
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import LOG_FILE, PLAN_FILE, TRANSCRIPT_FILE, VERDICT_FILE
from judge_runner.judges.registry import JudgeOptions
from tests.fakeapi import FakeMessagesServer, Malformed, reply, text, tool_use

RETRY = {"initial_wait_s": 0.0, "jitter_s": 0.0, "max_attempts": 2}


def options(api: FakeMessagesServer, **extra: object) -> JudgeOptions:
    return JudgeOptions(model="claude-test", base_url=api.base_url,
                        extra={"retry": RETRY, "timeout_s": 2.0, **extra})


def test_one_forced_tool_call_gives_the_verdict(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail",
                                                    "rationale": "step 3 wrote 41"})))
    verdict = make_judge(options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.FAIL and verdict.rationale == "step 3 wrote 41"
    body = fake_api.bodies[0]
    assert body["tool_choice"] == {"type": "tool", "name": "submit_verdict"}
    user = body["messages"][0]["content"]
    assert "Sum the numbers" in user and '{"total": 41}' in user and "Use python3 to add." in user
    assert verdict.details["selection"]["fits_whole"] is True
    for name in (PLAN_FILE, LOG_FILE, VERDICT_FILE, TRANSCRIPT_FILE):
        assert (tmp_path / "o" / name).is_file()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [(reply(text("PASS")), "unparseable output: expected a submit_verdict call"),
     (reply(tool_use("submit_verdict", {"decision": "maybe", "rationale": "x"})),
      "unparseable output: invalid submit_verdict input: decision"),
     (reply(tool_use("submit_verdict", {"decision": "abstain", "rationale": "x"})),
      "abstain answered although it is not enabled"),
     (Malformed(), "model call failed")],
)
def test_bad_answers_are_errors(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path, answer: object, reason: str
) -> None:
    fake_api.push(answer, answer)  # type: ignore[arg-type]  # the same after the repair turn
    verdict = make_judge(options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.ERROR
    assert reason in (verdict.error or "")


def test_an_unusable_answer_gets_one_repair_turn_with_the_problem(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "maybe", "rationale": "x"},
                                 id="tu_bad")),
                  reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "41"})))
    verdict = make_judge(options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.FAIL, verdict.error
    assert verdict.usage.calls == 2  # both calls are counted
    repair = fake_api.bodies[1]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    result = repair[2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "tu_bad"
    assert result["is_error"] is True and "invalid submit_verdict input: decision" in \
        result["content"]


def test_text_instead_of_the_call_is_sent_back_as_text_then_an_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(reply(text("```json {\"decision\": \"pass\"} ```")), reply(text("PASS")))
    verdict = make_judge(options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.ERROR
    assert "after a repair turn" in (verdict.error or "")
    assert verdict.usage.calls == 2 and verdict.usage.output_tokens > 0
    assert fake_api.bodies[1]["messages"][2]["content"][0]["type"] == "text"


def test_a_case_that_cannot_fit_the_prompt_budget_is_refused_without_a_call(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    from tests import casebuilder

    data = casebuilder.summing_dataset(tmp_path / "data", {"long": 41}, filler_steps=60)
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r"})))
    verdict = make_judge(options(fake_api, max_prompt_tokens=20)).judge(
        data.case("long"), tmp_path / "o")
    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("prompt too large: the case does not fit")
    assert verdict.details["selection"]["over_budget"] is True
    assert fake_api.bodies == []  # before: the over-budget prompt was sent all the same


def test_selection_policy_recorded_when_case_does_not_fit(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    from tests import casebuilder

    data = casebuilder.summing_dataset(tmp_path / "data", {"long": 41}, filler_steps=60)
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r"})))
    judge = make_judge(options(fake_api, max_prompt_tokens=3000))
    verdict = judge.judge(data.case("long"), tmp_path / "o")
    selection = verdict.details["selection"]
    assert selection["fits_whole"] is False and selection["omitted_steps"]
    user = fake_api.bodies[0]["messages"][0]["content"]
    first, last = selection["omitted_steps"][0]
    assert f"[steps {first}-{last} left out:" in user
    assert "Done: total is 41." in user  # final message always kept


def test_unknown_knob_is_refused(fake_api: FakeMessagesServer) -> None:
    with pytest.raises(JudgeConfigError, match="max_prompt_tokns"):
        make_judge(options(fake_api, max_prompt_tokns=5))
    with pytest.raises(JudgeConfigError, match="needs a model"):
        make_judge(JudgeOptions())


def test_a_rerun_that_fails_early_leaves_no_transcript_of_the_earlier_attempt(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r"})))
    case = dataset.case("c-fail")
    make_judge(options(fake_api)).judge(case, tmp_path / "o")
    assert (tmp_path / "o" / TRANSCRIPT_FILE).is_file()
    (case.root / "trajectory.json").unlink()
    verdict = make_judge(options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.ERROR
    assert (verdict.error or "").startswith("case package unreadable")
    assert not (tmp_path / "o" / TRANSCRIPT_FILE).exists()
