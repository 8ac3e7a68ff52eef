"""The rules judge on every real SkillsBench trial and every bundled example, imported with the
project importer: no errors, citations that resolve, identical products across runs, and the real
formats' quirks (runs cut off without a result event, notifications after the end, non-JSON lines).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import CasePackage, Dataset, StepKind, TerminationStatus
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.judges import Decision, Verdict
from judge_runner.judges.products import LOG_FILE, PLAN_FILE, read_log
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from tests.conftest import EXAMPLES, require

pytestmark = pytest.mark.shared


def _import(trials: Path, tasks: Path, out: Path) -> Dataset:
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    assert all(t.reason is None for t in report.trials), [t.reason for t in report.trials]
    return Dataset(out)


@pytest.fixture(scope="module")
def real_cases(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return _import(real_data / "trials", real_data / "tasks", tmp_path_factory.mktemp("real"))


@pytest.fixture(scope="module")
def example_cases(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    return _import(EXAMPLES / "trials", EXAMPLES / "tasks", tmp_path_factory.mktemp("examples"))


def _judge_all(dataset: Dataset, out: Path) -> dict[str, Verdict]:
    judge = RulesJudge(default_skill_dir())
    return {c.id: judge.judge(c, out / c.id) for c in dataset.cases()}


def _assert_citations_resolve(case: CasePackage, out: Path, verdict: Verdict) -> None:
    log = {i.id: i for i in read_log(out)}
    assert verdict.citations, f"{case.id}: a decided verdict cites nothing"
    assert set(verdict.citations) <= set(log), f"{case.id}: {verdict.citations}"
    steps = {str(s.index) for s in case.trajectory.steps}
    for inspection in log.values():
        assert inspection.evidence, f"{case.id} {inspection.id}: no evidence"
        for ref in inspection.evidence:
            assert ref.quote is None or ref.verified, f"{case.id} {inspection.id}: {ref.quote!r}"
            if ref.kind == "step":
                assert ref.ref in steps, f"{case.id} {inspection.id}: step {ref.ref}"
            elif ref.kind == "artifact":
                assert (case.artifacts_dir / ref.ref).is_file(), f"{case.id}: {ref.ref}"
            elif ref.kind == "skill":
                assert ref.ref in case.meta.skills
            else:
                assert ref.kind == "instruction" and ref.ref == "instruction.md"


def test_every_real_case_gets_a_decided_verdict_whose_citations_resolve(
        real_cases: Dataset, tmp_path: Path) -> None:
    verdicts = _judge_all(real_cases, tmp_path)
    assert len(verdicts) == len(real_cases.labels()) >= 26
    for case in real_cases.cases():
        verdict = verdicts[case.id]
        assert verdict.decision.is_decided, f"{case.id}: {verdict.error}"
        _assert_citations_resolve(case, tmp_path / case.id, verdict)


def test_every_bundled_example_gets_a_decided_verdict(example_cases: Dataset,
                                                      tmp_path: Path) -> None:
    verdicts = _judge_all(example_cases, tmp_path)
    assert verdicts
    for case in example_cases.cases():
        assert verdicts[case.id].decision.is_decided
        _assert_citations_resolve(case, tmp_path / case.id, verdicts[case.id])


def test_products_are_identical_across_runs(real_cases: Dataset, tmp_path: Path) -> None:
    first = _judge_all(real_cases, tmp_path / "a")
    second = _judge_all(real_cases, tmp_path / "b")
    for case_id, verdict in first.items():
        assert verdict.model_copy(update={"duration_s": 0.0}) == \
            second[case_id].model_copy(update={"duration_s": 0.0})
        for name in (PLAN_FILE, LOG_FILE):
            assert (tmp_path / "a" / case_id / name).read_bytes() == \
                (tmp_path / "b" / case_id / name).read_bytes()


def test_runs_cut_off_without_result_fail_on_termination(real_cases: Dataset,
                                                          tmp_path: Path) -> None:
    cut = [c for c in real_cases.cases()
           if c.trajectory.termination.status is TerminationStatus.NO_RESULT]
    assert len(cut) >= 2  # the real set holds runs that stop mid-run
    judge = RulesJudge(default_skill_dir())
    for case in cut:
        verdict = judge.judge(case, tmp_path / case.id)
        log = {i.id: i for i in read_log(tmp_path / case.id)}
        assert verdict.decision is Decision.FAIL
        assert "run_terminated" in {log[c].check for c in verdict.citations}


def test_notifications_after_the_end_do_not_hide_the_final_report(real_cases: Dataset,
                                                                  tmp_path: Path) -> None:
    trailing = [c for c in real_cases.cases()
                if c.trajectory.steps and c.trajectory.steps[-1].kind is StepKind.NOTICE
                and c.trajectory.termination.status is TerminationStatus.COMPLETED]
    assert trailing  # background-task notifications after the final result exist in the set
    judge = RulesJudge(default_skill_dir())
    for case in trailing:
        judge.judge(case, tmp_path / case.id)
        log = read_log(tmp_path / case.id)
        claims = [i for i in log if i.check in ("claims_backed", "no_deferral")]
        final_step = max(s.index for s in case.trajectory.steps
                         if s.kind is StepKind.ASSISTANT_MESSAGE)
        for inspection in claims:  # they read the last assistant message, not the notices
            assert inspection.evidence[0].ref == str(final_step)


def test_non_json_lines_in_a_transcript_change_nothing(real_data: Path, tmp_path: Path) -> None:
    manifest = json.loads((real_data / "MANIFEST.json").read_text())
    trial = real_data / manifest[0]["trial_dir"]
    clean = tmp_path / "clean" / trial.name
    noisy = tmp_path / "noisy" / trial.name
    shutil.copytree(trial, clean)
    shutil.copytree(trial, noisy)
    transcript = noisy / "agent" / "claude-code.txt"
    lines = transcript.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, "Warning: Bash pre-flight check is taking longer than expected\n")
    lines.insert(len(lines) // 2, "not json at all {\n")
    transcript.write_text("".join(lines), encoding="utf-8")
    a = _import(tmp_path / "clean", real_data / "tasks", tmp_path / "a")
    b = _import(tmp_path / "noisy", real_data / "tasks", tmp_path / "b")
    [va] = _judge_all(a, tmp_path / "out_a").values()
    [vb] = _judge_all(b, tmp_path / "out_b").values()
    assert va.decision.is_decided and va.decision is vb.decision and va.score == vb.score
