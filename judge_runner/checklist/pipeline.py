"""The checklist steps outside a judged run, and what each writes.

synth → `<out>/<task>.json` (frozen checklist) or `<out>/<task>.errors.json`
perturb → `<run dir>/perturbation.jsonl` (one PerturbRecord per perturbed judgment)

Judging cases against the checklists is the checklist judge's job (`judge.py`, run by `eval` like
every judge); the scores are metrics of the run (`metrics.py`).

A problem with one task or case (invalid task folder, failed model call) is recorded for that
task or case and the rest carry on. Output files are sorted by case id, so the same inputs give
byte-identical files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from judge_runner.cases import Dataset
from judge_runner.checklist.evidence import ExecutionLog, load_log
from judge_runner.checklist.models import (
    CaseJudgments,
    Checklist,
    EvidenceCite,
    JudgmentSource,
    Label,
    write_checklist,
)
from judge_runner.checklist.score import ChecklistScorer
from judge_runner.checklist.synth import SynthError, synthesize
from judge_runner.checklist.tasks import TaskSourceError, load_task
from judge_runner.jsonl import write_models
from judge_runner.log import get_logger
from judge_runner.models import ModelClient, ModelError

log = get_logger(__name__)

PERTURBATION_FILE = "perturbation.jsonl"


def _map[T, R](fn: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    if workers <= 1 or len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))


# --- synth ------------------------------------------------------------------------------------


class SynthOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    task_dir: str
    task: str | None = None
    checklist: str | None = None  # written file
    content_hash: str | None = None
    rounds: int = 0
    error: str | None = None
    failures: list[str] = []


def synth_tasks(
    task_dirs: Sequence[Path], rules: str, client: ModelClient, model: str, out_dir: Path,
    *, max_rounds: int = 3, workers: int = 2,
) -> list[SynthOutcome]:
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(task_dir: Path) -> SynthOutcome:
        try:
            task = load_task(task_dir)
        except TaskSourceError as exc:
            return SynthOutcome(task_dir=str(task_dir), error=str(exc))
        try:
            result = synthesize(task, rules, client, model, max_rounds=max_rounds)
        except SynthError as exc:
            outcome = SynthOutcome(task_dir=str(task_dir), task=task.name, error=str(exc),
                                   failures=[str(f) for f in exc.failures])
            (out_dir / f"{task.name}.errors.json").write_text(
                outcome.model_dump_json(indent=2) + "\n", encoding="utf-8")
            return outcome
        stale = out_dir / f"{task.name}.errors.json"
        stale.unlink(missing_ok=True)
        path = write_checklist(out_dir, result.checklist)
        return SynthOutcome(task_dir=str(task_dir), task=task.name, checklist=str(path),
                            content_hash=result.checklist.content_hash, rounds=result.rounds)

    results = _map(one, list(task_dirs), workers)
    for r in results:
        if r.error:
            log.warning("checklist.synth_failed", task_dir=r.task_dir, error=r.error)
    return results


# --- perturbation -----------------------------------------------------------------------------


class PerturbRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    item_id: str
    source: str  # code | model
    cite: EvidenceCite
    old: str
    new: str
    before: Label
    after: Label | None  # None when re-scoring failed
    error: str | None = None


def perturbation_check(
    dataset: Dataset, checklists: Mapping[str, Checklist], judgments: Sequence[CaseJudgments],
    scorer: ChecklistScorer, out_dir: Path, *, limit: int = 200, workers: int = 4,
) -> list[PerturbRecord]:
    """For each Yes judgment backed by a verified citation holding a number (in case order, up to
    `limit`), change that number to a plausible wrong one in the log and judge the item again.

    Judgments that a run could not re-score (offline run, model item) are skipped, not counted."""
    jobs: list[tuple[ExecutionLog, Checklist, str, EvidenceCite]] = []
    for cj in sorted(judgments, key=lambda j: j.case_id):
        checklist = checklists.get(cj.task)
        if cj.error is not None or checklist is None \
                or checklist.content_hash != cj.checklist_hash:
            continue
        execution = load_log(dataset.case(cj.case_id))
        for j in cj.judgments:
            if j.label is not Label.YES or len(jobs) >= limit:
                continue
            if j.source is JudgmentSource.MODEL and scorer.client is None:
                continue
            cite = next((c for c in j.evidence if c.verified and execution.perturbed(c)), None)
            if cite is not None:
                jobs.append((execution, checklist, j.item_id, cite))

    def one(job: tuple[ExecutionLog, Checklist, str, EvidenceCite]) -> PerturbRecord:
        execution, checklist, item_id, cite = job
        changed = execution.perturbed(cite)
        assert changed is not None  # selected above
        new_log, old, new = changed
        item = checklist.item(item_id)
        source = "code" if item.check is not None else "model"
        base = {"case_id": execution.case_id, "item_id": item_id, "source": source,
                "cite": cite, "old": old, "new": new, "before": Label.YES}
        try:
            after = scorer.rescore(new_log, item)
        except ModelError as exc:  # a failed re-score is recorded, never counted as a flip
            return PerturbRecord(**base, after=None, error=str(exc))
        return PerturbRecord(**base, after=after.label)

    records = _map(one, jobs, workers)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_models(out_dir / PERTURBATION_FILE, records)
    return records
