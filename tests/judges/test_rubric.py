"""Rubric judge: rubric from the task only, grades against it, products like the agent's."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.judges import Decision, Outcome
from judge_runner.judges.products import PLAN_FILE, read_log
from judge_runner.judges.registry import JudgeOptions
from judge_runner.judges.rubric import make_judge
from tests.fakeapi import FakeMessagesServer, reply, tool_use

RUBRIC = {"criteria": [
    {"id": "R1", "criterion": "out.json exists", "how_to_check": "artifact listing",
     "critical": True},
    {"id": "R2", "criterion": "total equals the sum", "how_to_check": "compare", "critical": True},
]}


def _options(api: FakeMessagesServer) -> JudgeOptions:
    return JudgeOptions(model="claude-test", base_url=api.base_url,
                        extra={"retry": {"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1}})


def test_rubric_then_grades(fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path) -> None:
    fake_api.push(
        reply(tool_use("submit_rubric", RUBRIC)),
        reply(tool_use("submit_grades", {
            "grades": [{"id": "R1", "grade": "met", "evidence": "listed"},
                       {"id": "R2", "grade": "not_met", "evidence": "41 != 42"}],
            "decision": "fail", "rationale": "R2 not met"})),
    )
    verdict = make_judge(_options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.FAIL and verdict.score == 0.5
    rubric_request, grade_request = fake_api.bodies
    # the rubric is written from the task alone: no trajectory, no artifact content
    assert "Sum the numbers" in rubric_request["messages"][0]["content"]
    assert "Done: total is 41." not in rubric_request["messages"][0]["content"]
    assert "R2 (critical): total equals the sum" in grade_request["messages"][0]["content"]
    assert "## R1: out.json exists (task-critical)" in (tmp_path / "o" / PLAN_FILE).read_text()
    log = read_log(tmp_path / "o")
    assert [(i.plan_item, i.outcome) for i in log] == [("R1", Outcome.SUPPORTS),
                                                       ("R2", Outcome.REFUTES)]
    assert verdict.citations == ["I1", "I2"]


def test_ungraded_criterion_is_an_error(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    fake_api.push(
        reply(tool_use("submit_rubric", RUBRIC)),
        reply(tool_use("submit_grades", {
            "grades": [{"id": "R1", "grade": "met", "evidence": "listed"}],
            "decision": "pass", "rationale": "fine"})),
    )
    verdict = make_judge(_options(fake_api)).judge(dataset.case("c-fail"), tmp_path / "o")
    assert verdict.decision == Decision.ERROR
    assert "criteria left ungraded: ['R2']" in (verdict.error or "")
