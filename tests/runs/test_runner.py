"""The runner through its Python API with a real scripted judge and real case packages."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from judge_runner import cancel
from judge_runner.cases import (
    ArtifactProvenance,
    ArtifactRecord,
    CasePackage,
    Dataset,
    Domain,
    Label,
)
from judge_runner.core import Decision, Plan, PlanItem, Verdict
from judge_runner.judges.products import (
    CANCELLED_FILE,
    LOG_FILE,
    NO_PLAN,
    PLAN_FILE,
    VERDICT_FILE,
    read_verdict,
    write_products,
)
from judge_runner.judges.registry import JudgeOptions, UnknownJudgeError, build_judge
from judge_runner.runs.records import load_records
from judge_runner.runs.runner import MissingCasesError, judge_one, run_eval
from judge_runner.runs.store import ConfigMismatchError, RunStore
from tests.casebuilder import AnswerCase, answer_dataset, mixed_answers
from tests.runs.scripted_judge import ScriptedJudge

FACTORY = "tests.runs.scripted_judge:make_judge"


def _judge(tmp_path: Path, tag: str = "a", latency: float = 0.0) -> ScriptedJudge:
    judge = build_judge(FACTORY, JudgeOptions(extra={
        "tag": tag, "latency": latency, "calls_log": str(tmp_path / "calls.log")}))
    assert isinstance(judge, ScriptedJudge)
    return judge


def _calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls.log"
    return path.read_text().split() if path.exists() else []


def test_run_writes_outputs_and_metrics(tmp_path: Path) -> None:
    specs = [*mixed_answers(9),
             AnswerCase("case-raise", "task-9", Domain.FINANCE, Label.FAIL, "raise")]
    ds = Dataset(answer_dataset(tmp_path / "ds", specs))
    result = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      concurrency=3, progress=False, write_reports=False)
    m = result.metrics
    assert m is not None
    # labels: pass at 0,3,6; answers wrong at 2,5,8 (fail labels answered pass)
    assert (m.tp, m.fp, m.tn, m.fn, m.n_error) == (3, 3, 3, 0, 1)
    records = load_records(tmp_path / "run")
    assert [r.case_id for r in records] == sorted(ds.case_ids())
    raised = next(r for r in records if r.case_id == "case-raise")
    assert raised.decision is Decision.ERROR and raised.correct is None
    assert "scripted failure" in (raised.verdict.error or "")
    assert (tmp_path / "run" / "cases" / "case-000" / "plan.md").is_file()
    summary = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert summary["metrics"]["tp"] == 3 and summary["usage"]["calls"] == 9
    log_events = [json.loads(x)["event"] for x in
                  (tmp_path / "run" / "run.log.jsonl").read_text().splitlines()]
    assert log_events[0] == "run_start" and log_events.count("verdict") == 10


def test_rerun_resumes_without_rejudging(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(6)))
    first = run_eval(_judge(tmp_path), ds, ds.case_ids()[:4], tmp_path / "run",
                     progress=False, write_reports=False)
    assert first.summary.n_judged_now == 4
    second = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      progress=False, write_reports=False)
    assert second.summary.n_judged_now == 2 and second.summary.n_resumed == 4
    assert sorted(_calls(tmp_path)) == sorted(ds.case_ids())
    with RunStore.open(tmp_path / "run") as store:
        assert set(store.attempts().values()) == {1}


def test_changed_config_is_refused(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(2)))
    run_eval(_judge(tmp_path, tag="a"), ds, ds.case_ids(), tmp_path / "run",
             progress=False, write_reports=False)
    with pytest.raises(ConfigMismatchError, match="differs in: tag"):
        run_eval(_judge(tmp_path, tag="b"), ds, ds.case_ids(), tmp_path / "run",
                 progress=False, write_reports=False)


def test_retry_errors_rejudges_only_errors(tmp_path: Path) -> None:
    specs = [*mixed_answers(3), AnswerCase("case-bad", "t", None, Label.PASS, "raise")]
    ds = Dataset(answer_dataset(tmp_path / "ds", specs))
    run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
             progress=False, write_reports=False)
    (ds.cases_dir / "case-bad" / "artifacts" / "answer.txt").write_text("pass\n")
    result = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      progress=False, retry_errors=True, write_reports=False)
    assert result.summary.n_judged_now == 1
    assert _calls(tmp_path).count("case-bad") == 2
    assert {r.case_id: r.decision for r in result.records}["case-bad"] is Decision.PASS
    with RunStore.open(tmp_path / "run") as store:
        assert store.attempts()["case-bad"] == 2


def test_missing_case_is_a_clear_error_before_judging(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(2)))
    with pytest.raises(MissingCasesError, match="nope"):
        run_eval(_judge(tmp_path), ds, ["case-000", "nope"], tmp_path / "run",
                 progress=False, write_reports=False)
    assert _calls(tmp_path) == []


def test_path_like_case_ids_are_refused_before_judging(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(2)))
    outside = answer_dataset(tmp_path / "outside", mixed_answers(1)) / "cases" / "case-000"
    for bad in ("../cases/case-001", str(outside), "cases/../cases/case-000"):
        with pytest.raises(MissingCasesError, match="not case ids"):
            run_eval(_judge(tmp_path), ds, ["case-000", bad], tmp_path / "run",
                     progress=False, write_reports=False)
    assert _calls(tmp_path) == [] and not (tmp_path / "run").exists()


def test_unlabeled_pool_has_no_metrics(tmp_path: Path) -> None:
    specs = [AnswerCase(f"c{i}", "t", None, None, "pass") for i in range(3)]
    ds = Dataset(answer_dataset(tmp_path / "ds", specs))
    result = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      progress=False, write_reports=False)
    assert result.metrics is None
    assert result.summary.decisions["pass"] == 3


def test_registry_rejects_bad_factory_paths() -> None:
    with pytest.raises(UnknownJudgeError, match="not found"):
        build_judge("tests.runs.no_such_module:make_judge", JudgeOptions())
    with pytest.raises(UnknownJudgeError, match="has no"):
        build_judge("tests.runs.scripted_judge:nothing", JudgeOptions())


def test_an_unsafe_package_is_an_error_and_never_judged(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(3)))
    bad = ds.case(ds.case_ids()[0])
    record = ArtifactRecord(path="/root/answer.txt", stored_as="../../../labels.jsonl",
                            provenance=ArtifactProvenance.COPIED)
    (bad.root / "case.json").write_text(
        bad.meta.model_copy(update={"artifacts": [record]}).model_dump_json())
    result = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      progress=False, write_reports=False)
    by_id = {r.case_id: r for r in result.records}
    error = by_id[bad.root.name].verdict
    assert error.decision is Decision.ERROR
    assert error.error is not None and error.error.startswith("invalid case package, not judged")
    assert "'../../../labels.jsonl' is not a file inside artifacts/" in error.error
    assert sorted(_calls(tmp_path)) == ds.case_ids()[1:]  # the judge never saw it
    written = json.loads((tmp_path / "run" / "cases" / bad.root.name / "verdict.json").read_text())
    assert written["decision"] == "error"


def test_leaks_are_found_by_content_and_inode_not_by_name(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(3)))
    honest, linked, copied = (ds.case(i) for i in ds.case_ids())
    (honest.artifacts_dir / "evidence").mkdir()
    (honest.artifacts_dir / "evidence" / "exhibit.txt").write_text("router config\n")
    (honest.artifacts_dir / "reward.txt").write_text("notes on the reward model\n")
    (honest.artifacts_dir / "labels.jsonl").write_text('{"label": "cat"}\n')
    os.link(ds.root / "labels.jsonl", linked.artifacts_dir / "summary.csv")
    (copied.artifacts_dir / "table.txt").write_bytes((ds.root / "labels.jsonl").read_bytes())
    result = run_eval(_judge(tmp_path), ds, ds.case_ids(), tmp_path / "run",
                      progress=False, write_reports=False)
    by_id = {r.case_id: r.verdict for r in result.records}
    assert by_id[honest.root.name].decision is not Decision.ERROR
    for case, why in ((linked, "the same file as labels.jsonl (a hard link)"),
                      (copied, "identical to labels.jsonl")):
        assert by_id[case.root.name].decision is Decision.ERROR
        assert why in str(by_id[case.root.name].error)
    assert _calls(tmp_path) == [honest.root.name]  # the judge saw only the honest case


def test_an_error_rewrites_the_products_of_an_earlier_attempt(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds",
                                [AnswerCase("case-x", "t", None, Label.PASS, "odd")]))
    out = tmp_path / "run" / "cases" / "case-x"
    run_eval(_judge(tmp_path), ds, ["case-x"], tmp_path / "run", progress=False,
             write_reports=False)
    assert "unknown answer 'odd'" in (out / VERDICT_FILE).read_text()
    assert "P1" in (out / PLAN_FILE).read_text()
    (ds.cases_dir / "case-x" / "artifacts" / "answer.txt").write_text("raise\n")
    run_eval(_judge(tmp_path), ds, ["case-x"], tmp_path / "run", progress=False,
             retry_errors=True, write_reports=False)
    assert "judge raised RuntimeError: scripted failure" in (out / VERDICT_FILE).read_text()
    assert (out / PLAN_FILE).read_text() == NO_PLAN and (out / LOG_FILE).read_text() == ""


class _OtherCaseJudge:
    """A broken judge: answers every case with a verdict (and products) for `case-other`."""

    name = "other"

    def config(self) -> dict[str, str]:
        return {}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        verdict = Verdict(case_id="case-other", judge=self.name, decision=Decision.PASS)
        write_products(out_dir, Plan(items=[PlanItem(id="P9", what="w", where="w", support="s",
                                                     refute="r")]), [], verdict)
        return verdict


def test_a_verdict_for_another_case_is_an_error_with_its_own_products(tmp_path: Path) -> None:
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(1)))
    out = tmp_path / "out"
    verdict = judge_one(_OtherCaseJudge(), ds.case("case-000"), out)
    assert verdict.decision is Decision.ERROR and verdict.case_id == "case-000"
    assert read_verdict(out) == verdict
    assert (out / PLAN_FILE).read_text() == NO_PLAN


class _ErrorsWhenCancelled:
    """Stands for a judge whose sandbox was removed by a SIGTERM handler mid-case: the run is
    cancelled while it works, and it then ends with an error (or raises)."""

    name = "errors-when-cancelled"

    def __init__(self, event: threading.Event, raises: bool) -> None:
        self.event = event
        self.raises = raises

    def config(self) -> dict[str, object]:
        return {}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        self.event.set()
        if self.raises:
            raise RuntimeError("sandbox jr-x: its command server exited")
        return Verdict(case_id=case.root.name, judge=self.name, decision=Decision.ERROR,
                       error="sandbox jr-x: its command server exited")


@pytest.mark.parametrize("raises", [False, True])
def test_an_error_once_the_run_is_cancelled_counts_as_cancelled(
    tmp_path: Path, raises: bool
) -> None:
    """Stored, such an error would make the next run skip a case that was never judged."""
    ds = Dataset(answer_dataset(tmp_path / "ds", mixed_answers(1)))
    event = threading.Event()
    with cancel.scope(event):
        verdict = judge_one(_ErrorsWhenCancelled(event, raises), ds.case("case-000"),
                            tmp_path / "out")
    assert verdict.decision is Decision.ERROR and verdict.error == cancel.CANCELLED
    # recorded as cancelled: no error verdict.json left for the case, cancelled.txt instead
    assert not (tmp_path / "out" / VERDICT_FILE).exists()
    assert (tmp_path / "out" / CANCELLED_FILE).read_text().startswith("cancelled:")
    # Outside a cancelled run the same error is the case's own.
    kept = judge_one(_ErrorsWhenCancelled(threading.Event(), raises), ds.case("case-000"),
                     tmp_path / "out2")
    assert kept.error is not None and "command server exited" in kept.error
