"""`bench gate`: the fixed subset of the dev pool every candidate JudgeSkill is scored on.

A task is a family. The gate takes exactly `n_fail` fail and `n_pass` pass cases and covers as
many families as fit: every family when there are at most `size` of them, otherwise `size`
families chosen by the seed. Coverage comes first (one case per family, with the pass quota
spread over distinct families), then the remaining quota is filled family by family, least-used
first, so no family dominates.

With a baseline run, many candidate gates are drawn (seeds derived from `seed`) and the one
whose baseline accuracy and balanced accuracy are closest to the baseline's figures on the whole
dev pool (sum of absolute differences) is kept; the differences are recorded.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Decision, Label, Metrics, compute_metrics
from judge_runner.runs import CaseRecord
from judge_runner.splits.build import SplitError
from judge_runner.splits.files import write_split
from judge_runner.splits.manifest import PoolCase, SplitCounts, counts

GATE_FILE = "gate.txt"
GATE_MANIFEST = "gate.json"
DEFAULT_CANDIDATES = 2000


class BaselineFit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    run: str
    full_accuracy: float
    full_balanced_accuracy: float
    gate_accuracy: float
    gate_balanced_accuracy: float
    accuracy_diff: float  # gate − full
    balanced_accuracy_diff: float
    candidates: int
    dev_cases_without_verdict: int


class GateManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int
    size: int
    n_fail: int
    n_pass: int
    families_in_pool: int
    families_covered: int
    uncovered_families: list[str]
    counts: SplitCounts
    baseline: BaselineFit | None = None


def draw_gate(pool: list[PoolCase], n_fail: int, n_pass: int, rng: random.Random) -> list[PoolCase]:
    """One gate: family coverage first, then label quotas filled across families."""
    by_task: dict[str, dict[str, list[PoolCase]]] = defaultdict(lambda: defaultdict(list))
    for c in sorted(pool, key=lambda c: c.case_id):
        by_task[c.task][c.label].append(c)
    for labels in by_task.values():
        for cases in labels.values():
            rng.shuffle(cases)
    tasks = sorted(by_task)
    rng.shuffle(tasks)
    covered = tasks[: n_fail + n_pass]
    quota = {Label.PASS.value: n_pass, Label.FAIL.value: n_fail}
    used: dict[str, int] = defaultdict(int)
    picked: list[PoolCase] = []

    def take(task: str, label: str) -> bool:
        if quota[label] == 0 or not by_task[task][label]:
            return False
        picked.append(by_task[task][label].pop())
        quota[label] -= 1
        used[task] += 1
        return True

    # pass first: pass cases are the scarce quota, so they get spread over distinct families
    pass_first = [t for t in covered if by_task[t][Label.PASS.value]]
    for task in pass_first[:n_pass]:
        take(task, Label.PASS.value)
    for task in covered:
        if used[task] == 0 and not take(task, Label.FAIL.value):
            take(task, Label.PASS.value)
    for label in (Label.PASS.value, Label.FAIL.value):
        while quota[label] > 0:
            options = [t for t in tasks if by_task[t][label]]
            if not options:
                break
            least = min(used[t] for t in options)
            take(rng.choice([t for t in options if used[t] == least]), label)
    return sorted(picked, key=lambda c: c.case_id)


def _check_feasible(pool: list[PoolCase], size: int, n_fail: int, n_pass: int) -> None:
    if n_fail < 0 or n_pass < 0 or size != n_fail + n_pass:
        raise SplitError(f"gate size {size} must equal --fail {n_fail} + --pass {n_pass}")
    have = {lab: sum(1 for c in pool if c.label == lab) for lab in ("pass", "fail")}
    if have["pass"] < n_pass or have["fail"] < n_fail:
        fits_fail, fits_pass = min(n_fail, have["fail"]), min(n_pass, have["pass"])
        raise SplitError(f"the dev pool has {have['pass']} pass and {have['fail']} fail cases; "
                         f"a gate of {n_pass} pass + {n_fail} fail cannot be drawn from it: "
                         f"ask for a smaller one, e.g. --size {fits_fail + fits_pass} "
                         f"--fail {fits_fail} --pass {fits_pass}")


def _distance(m: Metrics, full: Metrics) -> float:
    return abs(m.accuracy - full.accuracy) + abs(m.balanced_accuracy - full.balanced_accuracy)


def _metrics_on(records: dict[str, CaseRecord], cases: list[PoolCase]) -> Metrics:
    rows = [(records[c.case_id].decision, Label(c.label), c.domain)
            for c in cases if c.case_id in records]
    return compute_metrics(rows, resamples=0)


def build_gate(
    pool: list[PoolCase],
    out: Path,
    size: int = 36,
    n_fail: int = 27,
    n_pass: int = 9,
    seed: int = 0,
    baseline: list[CaseRecord] | None = None,
    baseline_name: str = "",
    candidates: int = DEFAULT_CANDIDATES,
) -> GateManifest:
    """Draw the gate, write gate.txt and gate.json into `out`. Raises SplitError if impossible."""
    _check_feasible(pool, size, n_fail, n_pass)
    rng = random.Random(seed)
    gate = draw_gate(pool, n_fail, n_pass, rng)
    fit: BaselineFit | None = None
    if baseline is not None:
        gate, fit = _fit_baseline(pool, baseline, baseline_name, n_fail, n_pass, seed, candidates)
    families = sorted({c.task for c in pool})
    covered = {c.task for c in gate}
    manifest = GateManifest(
        seed=seed, size=size, n_fail=n_fail, n_pass=n_pass, families_in_pool=len(families),
        families_covered=len(covered), uncovered_families=[t for t in families if t not in covered],
        counts=counts(gate), baseline=fit,
    )
    write_split(out / GATE_FILE, (c.case_id for c in gate))
    (out / GATE_MANIFEST).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return manifest


def _fit_baseline(
    pool: list[PoolCase],
    baseline: list[CaseRecord],
    name: str,
    n_fail: int,
    n_pass: int,
    seed: int,
    candidates: int,
) -> tuple[list[PoolCase], BaselineFit]:
    records = {r.case_id: r for r in baseline
               if r.decision in (Decision.PASS, Decision.FAIL)}
    missing = sum(1 for c in pool if c.case_id not in records)
    if missing == len(pool):
        raise SplitError(f"baseline run {name} has no decided verdict for any dev case")
    full = _metrics_on(records, pool)
    master = random.Random(seed)
    draws = (draw_gate(pool, n_fail, n_pass, random.Random(master.getrandbits(64)))
             for _ in range(max(1, candidates)))
    scored = ((_distance(_metrics_on(records, g), full), i, g) for i, g in enumerate(draws))
    _, _, gate = min(scored)  # ties: the earliest draw
    m = _metrics_on(records, gate)
    return gate, BaselineFit(
        run=name, full_accuracy=full.accuracy, full_balanced_accuracy=full.balanced_accuracy,
        gate_accuracy=m.accuracy, gate_balanced_accuracy=m.balanced_accuracy,
        accuracy_diff=m.accuracy - full.accuracy,
        balanced_accuracy_diff=m.balanced_accuracy - full.balanced_accuracy,
        candidates=max(1, candidates), dev_cases_without_verdict=missing,
    )
