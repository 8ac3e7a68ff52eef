"""Simulated annotators: k calls of the direct judge, each with its own deterministic set of
condensed labelled examples, and the vote share as the confidence (k = 1: the stated one)."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.core import Decision, Label
from judge_runner.judges.annotators import example_set, load_examples
from judge_runner.judges.direct import make_judge
from judge_runner.judges.registry import JudgeOptions
from tests.casebuilder import example_pool
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, http_error, reply, tool_use
from tests.fakeapi.server import Scripted

RETRY = {"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 1}


def _pool(root: Path) -> Path:
    """Six labelled cases over three tasks, each task with a pass and a fail."""
    return example_pool(root).root


def _options(api: FakeMessagesServer, **extra: object) -> JudgeOptions:
    return JudgeOptions(model="claude-test", base_url=api.base_url,
                        extra={"retry": RETRY, "timeout_s": 2.0, **extra})


def test_sets_are_deterministic_balanced_and_never_show_the_judged_task(tmp_path: Path) -> None:
    pool = load_examples(_pool(tmp_path / "ds"), chars=120)
    assert len(pool) == 6 and all("Final message:" in e.text for e in pool)
    assert all(e.label.value not in e.text.split("Final message:")[0] for e in pool)
    sets = [example_set(pool, j, case_id="alpha-pass", task="alpha") for j in range(5)]
    assert sets == [example_set(pool, j, case_id="alpha-pass", task="alpha") for j in range(5)]
    for chosen in sets:
        assert len(chosen) == 2 and {e.label for e in chosen} == set(Label)
        assert all(e.task != "alpha" and e.case_id != "alpha-pass" for e in chosen)
    assert len({tuple(e.case_id for e in s) for s in sets}) > 1  # the sets differ


def test_three_annotators_vote_and_the_share_is_the_confidence(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    root = _pool(tmp_path / "ds")
    votes = iter(["pass", "fail", "pass"])

    def answer(request: ReceivedRequest) -> Scripted:
        return reply(tool_use("submit_verdict", {"decision": next(votes), "confidence": 0.9,
                                                 "rationale": "looked"}))

    fake_api.responder = answer
    judge = make_judge(_options(fake_api, annotators=3, examples=str(root)))
    verdict = judge.judge(Dataset(root).case("beta-fail"), tmp_path / "out")
    assert verdict.decision is Decision.PASS and verdict.confidence == round(2 / 3, 6)
    assert verdict.details["votes"] == ["pass", "fail", "pass"]
    assert verdict.usage.calls == 3
    users = [str(b["messages"][0]["content"]) for b in fake_api.bodies]
    assert len(set(users)) == 3  # three different example sets
    for user in users:
        assert user.index("# Case beta-fail") < user.index("Labelled examples of OTHER runs")
        assert "final words of beta-" not in user.split("Labelled examples")[1]
    assert judge.config()["annotators"] == 3 and "examples_sha256" in judge.config()


def test_one_call_takes_the_stated_confidence(fake_api: FakeMessagesServer,
                                              tmp_path: Path) -> None:
    root = _pool(tmp_path / "ds")
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "confidence": 0.8,
                                                    "rationale": "looked"})))
    verdict = make_judge(_options(fake_api)).judge(Dataset(root).case("beta-fail"),
                                                   tmp_path / "out")
    assert verdict.decision is Decision.FAIL and verdict.confidence == 0.8
    assert "Labelled examples" not in str(fake_api.bodies[0]["messages"])


def test_a_failed_annotator_is_no_vote_and_lowers_the_confidence(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    root = _pool(tmp_path / "ds")
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "pass", "rationale": "a"})),
                  http_error(500),
                  reply(tool_use("submit_verdict", {"decision": "pass", "rationale": "b"})))
    judge = make_judge(_options(fake_api, annotators=3, examples=str(root)))
    verdict = judge.judge(Dataset(root).case("beta-fail"), tmp_path / "out")
    assert verdict.decision is Decision.PASS and verdict.confidence == round(2 / 3, 6)
    assert verdict.details["failed"] == 1 and verdict.usage.failed_calls == 1
    assert verdict.details["votes"][1].startswith("model call failed")


def test_every_annotator_failing_is_an_error(fake_api: FakeMessagesServer,
                                             tmp_path: Path) -> None:
    root = _pool(tmp_path / "ds")
    fake_api.push(http_error(500), http_error(500))
    judge = make_judge(_options(fake_api, annotators=2, examples=str(root)))
    verdict = judge.judge(Dataset(root).case("beta-fail"), tmp_path / "out")
    assert verdict.decision is Decision.ERROR and verdict.error is not None
    assert verdict.error.startswith("annotator 1: model call failed")


def test_more_than_one_annotator_without_examples_is_refused_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from judge_runner.cli import app

    root = _pool(tmp_path / "ds")
    for judge in ("direct", "rubric"):
        done = CliRunner().invoke(app, [
            "eval", str(root), "--judge", judge, "--model", "claude-test", "--base-url",
            "http://127.0.0.1:9", "-o", "annotators=3", "--run-dir", str(tmp_path / judge),
            "--no-progress"])
        assert done.exit_code == 2, done.output
        assert "-o annotators=3 needs -o examples=DATASET" in done.output
        assert len(done.output.strip().splitlines()) == 1
        assert not (tmp_path / judge).exists()
