"""Rubric judge: rubric from the task only, grades against it, products like the agent's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge_runner.calibration import judge_config_hash, load
from judge_runner.cases import Dataset
from judge_runner.cli import app
from judge_runner.core import Decision, Outcome
from judge_runner.judges.products import PLAN_FILE, read_log, read_verdict
from judge_runner.judges.registry import JudgeOptions
from judge_runner.judges.rubric import make_judge
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, http_error, reply, tool_use
from tests.fakeapi.server import Scripted
from tests.judges.conftest import leaked

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


# --- simulated annotators: one rubric, k grading calls --------------------------------------------

EXAMPLES = "# Labelled examples of OTHER runs"
ONE_TRY = {"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1}


def _grades(decision: str) -> dict[str, object]:
    met = "met" if decision == "pass" else "not_met"
    return {"grades": [{"id": "R1", "grade": "met", "evidence": "listed"},
                       {"id": "R2", "grade": met, "evidence": f"graded {decision}"}],
            "decision": decision, "rationale": f"R2 {met}", "confidence": 0.9}


def _grader(decisions: list[str | dict[str, object] | None]) -> Any:
    """Answers the rubric call with RUBRIC and grading call n with decisions[n % k]: a decision,
    a raw submit_grades input, or None for a failed call."""
    calls = iter(range(10_000))

    def respond(request: ReceivedRequest) -> Scripted:
        tool = request.body["tools"][0]["name"]
        if tool == "submit_rubric":
            return reply(tool_use("submit_rubric", RUBRIC))
        answer = decisions[next(calls) % len(decisions)]
        if answer is None:
            return http_error(500)
        return reply(tool_use("submit_grades", _grades(answer) if isinstance(answer, str)
                              else answer))

    return respond


def _annotated(api: FakeMessagesServer, pool: Dataset, k: int) -> JudgeOptions:
    return JudgeOptions(model="claude-test", base_url=api.base_url,
                        extra={"retry": ONE_TRY, "annotators": k, "examples": str(pool.root)})


@pytest.fixture
def pool(tmp_path: Path) -> Dataset:
    """The judged sum-numbers cases c-fail and c-pass among the labelled example pool."""
    return casebuilder.example_pool(tmp_path / "pool", {"c-fail": 41, "c-pass": 42})


def test_one_rubric_three_graders_vote(fake_api: FakeMessagesServer, pool: Dataset,
                                       tmp_path: Path) -> None:
    fake_api.responder = _grader(["fail", "pass", "fail"])
    judge = make_judge(_annotated(fake_api, pool, 3))
    verdict = judge.judge(pool.case("c-fail"), tmp_path / "o")
    assert verdict.decision is Decision.FAIL and verdict.confidence == round(2 / 3, 6)
    assert verdict.details["votes"] == ["fail", "pass", "fail"]
    assert verdict.details["stated"] == [0.9, 0.9, 0.9] and verdict.details["shown"] == 1
    assert verdict.rationale == "2 of 3 annotators: R2 not_met" and verdict.score == 0.5
    assert verdict.usage.calls == 4 and read_verdict(tmp_path / "o") == verdict
    rubric_request, *grading = fake_api.bodies
    assert EXAMPLES not in str(rubric_request)  # the rubric is written once, from the task
    users = [str(b["messages"][0]["content"]) for b in grading]
    assert len(set(users)) == 3  # three example sets
    for user in users:
        rubric_part, examples = user.split(EXAMPLES)
        assert "# Case c-fail" in rubric_part and "R2 (critical)" in rubric_part
        assert "final words of" in examples and "Sum the numbers" not in examples
        assert examples.rstrip().endswith("call submit_grades.")
    # no label record of the pool, the judged case's included, reached the model
    assert leaked(casebuilder.secrets_of(pool.root), list(fake_api.requests)) == []
    assert [(i.plan_item, i.outcome) for i in read_log(tmp_path / "o")] == [
        ("R1", Outcome.SUPPORTS), ("R2", Outcome.REFUTES)]


def test_a_failed_or_unusable_grading_is_no_vote(fake_api: FakeMessagesServer, pool: Dataset,
                                                 tmp_path: Path) -> None:
    ungraded: dict[str, object] = {"grades": [{"id": "R1", "grade": "met", "evidence": "x"}],
                                   "decision": "fail", "rationale": "half"}
    fake_api.responder = _grader(["pass", None, ungraded, "pass"])
    verdict = make_judge(_annotated(fake_api, pool, 4)).judge(pool.case("c-pass"),
                                                              tmp_path / "o")
    assert verdict.decision is Decision.PASS and verdict.confidence == 0.5
    assert verdict.details["failed"] == 2 and verdict.usage.failed_calls == 1
    assert verdict.details["votes"][1].startswith("model call failed")
    assert "criteria left ungraded: ['R2']" in verdict.details["votes"][2]


def test_a_tie_is_fail_and_no_answer_is_an_error(fake_api: FakeMessagesServer, pool: Dataset,
                                                 tmp_path: Path) -> None:
    fake_api.responder = _grader(["pass", "fail"])
    tie = make_judge(_annotated(fake_api, pool, 2)).judge(pool.case("c-pass"), tmp_path / "t")
    assert tie.decision is Decision.FAIL and tie.confidence == 0.5
    assert tie.details["shown"] == 2
    fake_api.responder = _grader([None])
    failed = make_judge(_annotated(fake_api, pool, 2)).judge(pool.case("c-pass"), tmp_path / "f")
    assert failed.decision is Decision.ERROR
    assert (failed.error or "").startswith("annotator 1: model call failed")


def test_calibrate_takes_an_annotated_run_for_its_own_configuration(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    data = casebuilder.summing_dataset(tmp_path / "data", {f"c{i}": 41 + i % 2 for i in range(4)})
    pool = casebuilder.example_pool(tmp_path / "pool")
    by_total = iter(range(10_000))

    def respond(request: ReceivedRequest) -> Scripted:
        if request.body["tools"][0]["name"] == "submit_rubric":
            return reply(tool_use("submit_rubric", RUBRIC))
        right = "pass" if '\\"total\\": 42' in request.text else "fail"
        wrong = "fail" if right == "pass" else "pass"
        return reply(tool_use("submit_grades", _grades(wrong if next(by_total) % 3 == 2
                                                       else right)))

    fake_api.responder = respond
    retry = json.dumps(ONE_TRY)
    common = ["--judge", "rubric", "--model", "claude-test", "--base-url", fake_api.base_url,
              "-o", f"retry={retry}", "--no-progress", "--concurrency", "1"]
    annotated = ["-o", "annotators=3", "-o", f"examples={pool.root}"]
    dev = tmp_path / "dev"
    _cli("eval", str(data.root), *common, *annotated, "--run-dir", str(dev))
    out = tmp_path / "calibration.json"
    _cli("calibrate", str(dev), "--agreement", "0.5", "--delta", "0.5", "--out", str(out))
    calibration = load(out)
    assert calibration.n == 4 and calibration.threshold == round(2 / 3, 6)
    # the first annotator's own stated confidence is measured beside the vote share
    assert calibration.stated_quality is not None and calibration.stated_quality.n == 4
    three = make_judge(JudgeOptions(model="claude-test", base_url=fake_api.base_url, extra={
        "annotators": 3, "examples": str(pool.root)})).config()
    one = make_judge(JudgeOptions(model="claude-test", base_url=fake_api.base_url)).config()
    assert calibration.config_hash == judge_config_hash("rubric", three)
    assert calibration.config_hash != judge_config_hash("rubric", one)
    calls = len(fake_api.requests)
    refused = _cli("eval", str(data.root), *common, "--calibration", str(out),
                   "--run-dir", str(tmp_path / "k1"), code=2)
    assert "was made for the rubric judge with configuration" in refused
    assert len(fake_api.requests) == calls


def _cli(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return " ".join(result.output.split())
