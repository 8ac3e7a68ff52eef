"""Best-of-n rollout selection (Success@n) from judged runs.

Protocol, per selector (each run, plus an oracle and a random reference):
for every task, budget n = 1..n_max and repeat r = 1..R, sample min(n, pool) of the task's
trajectories without replacement, pick one uniformly among those the judge predicted pass, and
score the pick with its hidden label. When no sampled trajectory is predicted pass (the judge
rejects all of them, errs or abstains), the pick is uniform among all sampled ones: the judge gave
no signal, so selection falls back to chance rather than to a forced failure.
Success@n = mean over repeats of the macro-average over tasks.

Samples are paired: for a given (task, n, repeat) every selector sees the same trajectories, so
differences between curves come from the judges, not from sampling noise. Only cases labeled and
present in every run take part. The oracle picks a pass whenever the sample holds one; the random
selector is the fallback rule applied always.

`expected_success` gives the exact expectation over all samples (no sampling noise), reported
next to the sampled figures.

Ranking by score (`by_score`, `select --by score`): a run whose verdicts carry a score (the
checklist judge's raw credit, a rubric's share of criteria met) picks the sampled trajectory with
the highest score instead, ties uniform; a trajectory without a score (an error, an undecided
checklist) ranks below every scored one. Its curve says `rule="score"`.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from math import comb

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Decision, Label
from judge_runner.runs.records import CaseRecord

ORACLE = "oracle"
RANDOM = "random"


class Trajectory(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    passed: bool  # hidden label
    predicted: dict[str, bool]  # selector name -> predicted pass
    scores: dict[str, float | None] = {}  # selector ranking by score -> the verdict's score


class Curve(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    selector: str
    rule: str = "decision"  # "decision": uniform among predicted pass; "score": highest score
    sampled: list[float]  # index n-1 → Success@n over the repeats
    expected: list[float]  # exact expectation


class SelectionResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n_max: int
    repeats: int
    seed: int
    tasks: int
    trajectories: int
    curves: list[Curve]


def build_pools(runs: dict[str, list[CaseRecord]], by_score: frozenset[str] = frozenset()
                ) -> dict[str, list[Trajectory]]:
    """Per-task pools of the labeled cases present in every run (sorted, deterministic);
    the runs named in `by_score` keep each verdict's score for ranking."""
    by_run = {name: {r.case_id: r for r in recs} for name, recs in runs.items()}
    shared = set.intersection(*(set(v) for v in by_run.values())) if by_run else set()
    first = next(iter(by_run.values()), {})
    pools: dict[str, list[Trajectory]] = defaultdict(list)
    for case_id in sorted(shared):
        record = first[case_id]
        if record.label is None:
            continue
        predicted = {name: recs[case_id].decision is Decision.PASS
                     for name, recs in by_run.items()}
        predicted[ORACLE] = record.label is Label.PASS
        predicted[RANDOM] = False
        scores = {name: by_run[name][case_id].verdict.score for name in sorted(by_score)}
        pools[record.task or "unknown"].append(Trajectory(
            case_id=case_id, passed=record.label is Label.PASS, predicted=predicted,
            scores=scores))
    return dict(sorted(pools.items()))


def pick(sample: Sequence[Trajectory], selector: str, rng: random.Random) -> Trajectory:
    if sample and selector in sample[0].scores:
        return rng.choice(highest(sample, selector))
    chosen = [t for t in sample if t.predicted[selector]]
    return rng.choice(chosen or list(sample))


def _rank(t: Trajectory, selector: str) -> float:
    score = t.scores[selector]
    return -math.inf if score is None else score


def highest(sample: Sequence[Trajectory], selector: str) -> list[Trajectory]:
    """The sampled trajectories sharing the highest score of `selector` (unscored lowest)."""
    top = max(_rank(t, selector) for t in sample)
    return [t for t in sample if _rank(t, selector) == top]


def expected_ranked_success(pool: Sequence[Trajectory], selector: str, n: int) -> float:
    """Exact expected success of picking the highest-scored of a uniform sample of
    min(n, |pool|) trajectories, ties uniform: per score level v, the chance that the sample
    holds nothing above v and something at v, times the share of passes at v."""
    n = min(n, len(pool))
    total = comb(len(pool), n)
    levels = sorted({_rank(t, selector) for t in pool}, reverse=True)
    value = 0.0
    for level in levels:
        at = [t for t in pool if _rank(t, selector) == level]
        below = sum(1 for t in pool if _rank(t, selector) < level)
        chance = (comb(len(at) + below, n) - comb(below, n)) / total
        value += chance * sum(t.passed for t in at) / len(at)
    return value


def sampled_success(
    pools: dict[str, list[Trajectory]], selectors: Sequence[str], n_max: int, repeats: int,
    seed: int,
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {s: [] for s in selectors}
    for n in range(1, n_max + 1):
        totals = dict.fromkeys(selectors, 0.0)
        for r in range(repeats):
            per_task = dict.fromkeys(selectors, 0.0)
            for t_index, (_, pool) in enumerate(pools.items()):
                sample_rng = random.Random(f"{seed}:{r}:{n}:{t_index}")
                sample = sample_rng.sample(pool, min(n, len(pool)))
                for s in selectors:
                    pick_rng = random.Random(f"{seed}:{r}:{n}:{t_index}:pick")
                    per_task[s] += pick(sample, s, pick_rng).passed
            for s in selectors:
                totals[s] += per_task[s] / len(pools)
        for s in selectors:
            out[s].append(totals[s] / repeats)
    return out


def expected_task_success(pool: Sequence[Trajectory], selector: str, n: int) -> float:
    """Exact expected success of one pick from a uniform sample of min(n, |pool|) trajectories."""
    if pool and selector in pool[0].scores:
        return expected_ranked_success(pool, selector, n)
    a = sum(1 for t in pool if t.predicted[selector] and t.passed)
    b = sum(1 for t in pool if t.predicted[selector] and not t.passed)
    c = sum(1 for t in pool if not t.predicted[selector] and t.passed)
    d = len(pool) - a - b - c
    n = min(n, len(pool))
    total = comb(len(pool), n)
    value = 0.0
    for i in range(min(a, n) + 1):
        for j in range(min(b, n - i) + 1):
            for k in range(min(c, n - i - j) + 1):
                m = n - i - j - k
                if m > d:
                    continue
                weight = comb(a, i) * comb(b, j) * comb(c, k) * comb(d, m)
                success = i / (i + j) if i + j else k / n
                value += weight * success
    return value / total


def scored_runs(runs: dict[str, list[CaseRecord]]) -> frozenset[str]:
    """The runs with a score on some verdict: those `select --by score` ranks by score."""
    return frozenset(name for name, recs in runs.items()
                     if any(r.verdict.score is not None for r in recs))


def select(
    runs: dict[str, list[CaseRecord]], n_max: int = 10, repeats: int = 8, seed: int = 0,
    by_score: frozenset[str] = frozenset(),
) -> SelectionResult:
    """Success@n curves for every run and the two references; the runs in `by_score` pick by
    score. ValueError when nothing is shared."""
    if n_max < 1 or repeats < 1:
        raise ValueError("--n-max and --repeats must be at least 1")
    pools = build_pools(runs, by_score)
    if not pools:
        raise ValueError("the runs share no labeled case: Success@n needs hidden labels")
    selectors = [*runs, ORACLE, RANDOM]
    sampled = sampled_success(pools, selectors, n_max, repeats, seed)
    curves = [Curve(selector=s, rule="score" if s in by_score else "decision",
                    sampled=sampled[s],
                    expected=[sum(expected_task_success(p, s, n) for p in pools.values())
                              / len(pools) for n in range(1, n_max + 1)])
              for s in selectors]
    return SelectionResult(n_max=n_max, repeats=repeats, seed=seed, tasks=len(pools),
                           trajectories=sum(len(p) for p in pools.values()), curves=curves)
