"""`bench build`: filter a labeled pool and split it task-disjoint into dev and eval.

Steps, each deterministic for a seed:

1. Drop cases that fail dataset validation (schema, step/token/field limits, consistency, label
   isolation; see `judge_runner.cases.validate`) or carry no label. Each dropped case is listed
   in the manifest with its reasons.
2. Keep only tasks that still have both a pass and a fail case.
3. Report the construction funnel (`funnel`): trials entered, refused by the import (by
   reason), dropped as overlong / invalid / unlabeled, in single-outcome tasks, remained —
   overall, per harness and per agent model — in the manifest and the command's output.
4. Choose eval tasks domain by domain in round-robin (task order within a domain shuffled by the
   seed), adding a task only while that brings the eval size closer to the target. Everything
   else is dev. A task is never on both sides.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from judge_runner.cases import Dataset, LabelRecord, ValidationLimits, validate_dataset
from judge_runner.core import CASE_FILE, IMPORT_REPORT_FILE
from judge_runner.ingest import ImportReport
from judge_runner.splits.files import MANIFEST_FILE, write_split
from judge_runner.splits.funnel import funnel
from judge_runner.splits.manifest import (
    BenchManifest,
    DroppedCase,
    PoolCase,
    counts,
    dataset_sha256,
)

# The reference benchmark: 681 cases → 478 dev / 203 eval.
DEFAULT_EVAL_FRACTION = 203 / 681


class SplitError(ValueError):
    """Constraints that cannot be met; the message says which and with what counts."""


@dataclass(frozen=True)
class BuiltSplits:
    dev: list[PoolCase]
    eval: list[PoolCase]
    manifest: BenchManifest


def load_pool(
    dataset: Dataset, limits: ValidationLimits
) -> tuple[list[PoolCase], list[DroppedCase]]:
    """Cases that pass validation and carry a label, and the dropped ones with their reasons."""
    problems: dict[str, list[str]] = defaultdict(list)
    for issue in validate_dataset(dataset.root, limits):
        problems[issue.case_id].append(f"{issue.field}: {issue.message}")
    labels = dataset.labels()
    pool: list[PoolCase] = []
    dropped: list[DroppedCase] = []
    for case_id in dataset.case_ids():
        if case_id in problems:
            dropped.append(DroppedCase(case_id=case_id, reason="; ".join(problems[case_id])))
            continue
        if case_id not in labels:
            dropped.append(DroppedCase(case_id=case_id, reason="no label"))
            continue
        pool.append(_pool_case(dataset, case_id, labels[case_id]))
    return pool, dropped


def split_pool(dataset: Dataset, case_ids: list[str]) -> list[PoolCase]:
    """The listed cases of a split, read without re-validating: for a dataset that
    `BenchManifest.check_dataset` found unchanged since `bench build` validated it. Raises
    SplitError naming the cases that have no case.json or no label."""
    labels = dataset.labels()
    unusable = [c for c in case_ids
                if c not in labels or not (dataset.cases_dir / c / CASE_FILE).is_file()]
    if unusable:
        raise SplitError(f"{len(unusable)} split case(s) missing or unlabeled in {dataset.root}: "
                         f"{', '.join(unusable[:5])}")
    return [_pool_case(dataset, c, labels[c]) for c in case_ids]


def _pool_case(dataset: Dataset, case_id: str, label: LabelRecord) -> PoolCase:
    meta = dataset.case(case_id).meta
    domain = meta.domain.value if meta.domain is not None else "unknown"
    return PoolCase(case_id=case_id, task=meta.task, domain=domain, label=label.label.value)


def two_outcome_tasks(pool: list[PoolCase]) -> tuple[list[PoolCase], dict[str, str]]:
    labels_by_task: dict[str, set[str]] = defaultdict(set)
    for c in pool:
        labels_by_task[c.task].add(c.label)
    dropped = {t: f"only {', '.join(sorted(ls))} cases" for t, ls in sorted(labels_by_task.items())
               if len(ls) < 2}
    return [c for c in pool if c.task not in dropped], dropped


def choose_eval_tasks(pool: list[PoolCase], target: int, seed: int) -> set[str]:
    size: dict[str, int] = defaultdict(int)
    domain_of: dict[str, str] = {}
    for c in pool:
        size[c.task] += 1
        domain_of.setdefault(c.task, c.domain)  # a task's domain: that of its first case
    rng = random.Random(seed)
    queues: dict[str, list[str]] = defaultdict(list)
    for task in sorted(size):
        queues[domain_of[task]].append(task)
    domains = sorted(queues)
    rng.shuffle(domains)
    for d in domains:
        rng.shuffle(queues[d])
    chosen: set[str] = set()
    total = 0
    progress = True
    while progress and total < target:
        progress = False
        for d in domains:
            queue = queues[d]
            for i, task in enumerate(queue):
                if abs(total + size[task] - target) < abs(total - target):
                    chosen.add(task)
                    total += size[task]
                    queue.pop(i)
                    progress = True
                    break
    return chosen


def _import_report(dataset: Dataset) -> ImportReport | None:
    """The dataset's import report, for the funnel; None when missing or unreadable."""
    path = dataset.root / IMPORT_REPORT_FILE
    try:
        return ImportReport.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build_splits(
    dataset: Dataset,
    out: Path,
    seed: int = 0,
    eval_size: int | None = None,
    eval_fraction: float = DEFAULT_EVAL_FRACTION,
    limits: ValidationLimits | None = None,
) -> BuiltSplits:
    """Write dev.txt, eval.txt and manifest.json into `out`.

    Raises SplitError when fewer than two tasks survive filtering (no task-disjoint split exists)
    or the requested eval size leaves nothing for dev.
    """
    limits = limits or ValidationLimits()
    pool, dropped = load_pool(dataset, limits)
    kept, dropped_tasks = two_outcome_tasks(pool)
    n_tasks = len({c.task for c in kept})
    if n_tasks < 2:
        raise SplitError(f"{dataset.root}: {n_tasks} task(s) with both pass and fail cases after "
                         f"filtering ({len(pool)} usable cases of {len(dataset.case_ids())}); "
                         "a task-disjoint dev/eval split needs at least 2")
    target = eval_size if eval_size is not None else round(eval_fraction * len(kept))
    if not 0 < target < len(kept):
        raise SplitError(f"eval size {target} must be between 1 and {len(kept) - 1} "
                         f"(the pool has {len(kept)} cases)")
    eval_tasks = choose_eval_tasks(kept, target, seed)
    if not eval_tasks or len(eval_tasks) == n_tasks:
        raise SplitError(f"no task-disjoint split near eval size {target}: task sizes "
                         f"{sorted(counts(kept).by_task.items())}")
    eval_cases = [c for c in kept if c.task in eval_tasks]
    dev_cases = [c for c in kept if c.task not in eval_tasks]
    manifest = BenchManifest(
        dataset=str(dataset.root.resolve()), dataset_sha256=dataset_sha256(dataset), seed=seed,
        limits=asdict(limits),
        eval_target=target, dropped=dropped, dropped_tasks=dropped_tasks,
        splits={"dev": counts(dev_cases), "eval": counts(eval_cases)},
        funnel=funnel(dataset, _import_report(dataset), {d.case_id: d.reason for d in dropped},
                      [c.case_id for c in pool if c.task in dropped_tasks],
                      [c.case_id for c in kept]),
    )
    write_split(out / "dev.txt", (c.case_id for c in dev_cases))
    write_split(out / "eval.txt", (c.case_id for c in eval_cases))
    (out / MANIFEST_FILE).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return BuiltSplits(dev=dev_cases, eval=eval_cases, manifest=manifest)
