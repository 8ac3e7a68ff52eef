"""Classification metrics of a judge against hidden labels (pass is the positive class).

Edge cases, defined once here and used everywhere (metrics.json, reports, the gate):

- Only ``pass``/``fail`` predictions enter the confusion matrix. ``error`` and ``abstain`` are
  counted in ``n_error``/``n_abstain`` and lower ``coverage``; they are never scored as a pass or
  a fail.
- A ratio whose denominator is zero (no predicted pass → precision; no pass label → recall; no
  decided case → accuracy, ...) is reported as ``0.0`` and its name is listed in ``undefined``.
  Derived figures use that 0.0 (balanced accuracy with no pass label = recall_fail / 2), so a
  judge can never gain from a degenerate input; the flag tells a reader the 0.0 is not measured.
- Confidence intervals: Wilson score (95 %) for proportions; a percentile bootstrap over decided
  cases for balanced accuracy and the gate score, with the seed and resample count recorded.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core.decisions import Decision, Label

Z_95 = 1.959963984540054
DEFAULT_BOOTSTRAP = 2000
DEFAULT_SEED = 0

Row = tuple[Decision, Label, str | None]


def gate_score(balanced_accuracy: float, recall_fail: float, precision_pass: float) -> float:
    """G = 0.5·BalAcc + 0.3·Recall_fail + 0.2·Precision_pass."""
    return 0.5 * balanced_accuracy + 0.3 * recall_fail + 0.2 * precision_pass


class Figures(BaseModel):
    """The headline figures of a judge on one case set: what the gate compares and what the
    evolution state and reports record per skill version. `n_error` counts the cases the judge
    did not decide."""

    model_config = ConfigDict(extra="forbid")

    n: int
    n_error: int
    accuracy: float
    balanced_accuracy: float
    recall_fail: float
    precision_pass: float
    gate_score: float


class Interval(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    low: float
    high: float
    method: str  # "wilson" | "bootstrap"


class DomainMetrics(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    n_decided: int
    correct: int
    accuracy: float  # 0.0 when n_decided == 0


class Metrics(BaseModel):
    """Everything metrics.json holds. See the module docstring for the degenerate-case rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    n_error: int
    n_abstain: int
    n_decided: int
    coverage: float
    tp: int
    fp: int
    tn: int
    fn: int
    precision: float
    recall: float
    f1: float
    accuracy: float
    balanced_accuracy: float
    recall_fail: float
    precision_pass: float
    gate_score: float
    undefined: list[str] = Field(default_factory=list)
    ci: dict[str, Interval] = Field(default_factory=dict)
    bootstrap_seed: int = DEFAULT_SEED
    bootstrap_resamples: int = DEFAULT_BOOTSTRAP
    per_domain: dict[str, DomainMetrics] = Field(default_factory=dict)

    def figures(self, n_error: int | None = None) -> Figures:
        """The headline figures; `n_error` overrides the count of undecided cases (the gate
        scores them as wrong decisions, so its own metrics count none)."""
        return Figures(
            n=self.n,
            n_error=self.n_error + self.n_abstain if n_error is None else n_error,
            accuracy=self.accuracy,
            balanced_accuracy=self.balanced_accuracy,
            recall_fail=self.recall_fail,
            precision_pass=self.precision_pass,
            gate_score=self.gate_score,
        )


def wilson_interval(successes: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval; (0.0, 1.0) when `total` is zero (nothing is known)."""
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class _Counts:
    """Confusion-matrix counts and the ratios derived from them."""

    def __init__(self, pairs: Sequence[tuple[bool, bool]]) -> None:
        # pairs of (predicted pass, truly pass) over decided cases only
        self.tp = sum(1 for p, t in pairs if p and t)
        self.fp = sum(1 for p, t in pairs if p and not t)
        self.tn = sum(1 for p, t in pairs if not p and not t)
        self.fn = sum(1 for p, t in pairs if not p and t)
        self.undefined: list[str] = []

    def ratio(self, name: str, num: int, den: int) -> float:
        if den == 0:
            self.undefined.append(name)
            return 0.0
        return num / den

    def figures(self) -> dict[str, float]:
        tp, fp, tn, fn = self.tp, self.fp, self.tn, self.fn
        precision = self.ratio("precision", tp, tp + fp)
        recall = self.ratio("recall", tp, tp + fn)
        recall_fail = self.ratio("recall_fail", tn, tn + fp)
        f1 = self.ratio("f1", 2 * tp, 2 * tp + fp + fn)
        accuracy = self.ratio("accuracy", tp + tn, tp + fp + tn + fn)
        balanced = (recall + recall_fail) / 2
        return {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "accuracy": accuracy,
            "balanced_accuracy": balanced,
            "recall_fail": recall_fail,
            "precision_pass": precision,
            "gate_score": gate_score(balanced, recall_fail, precision),
        }


def _bootstrap(
    pairs: Sequence[tuple[bool, bool]],
    stats: Sequence[str],
    seed: int,
    resamples: int,
) -> dict[str, Interval]:
    """Percentile intervals (2.5 %, 97.5 %) of the named figures over resampled decided cases.

    `resamples` of 0 skips the bootstrap (no interval), for callers that only need the figures.
    """
    if resamples <= 0:
        return {}
    if not pairs:
        return {s: Interval(low=0.0, high=1.0, method="bootstrap") for s in stats}
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {s: [] for s in stats}
    n = len(pairs)
    for _ in range(resamples):
        sample = [pairs[rng.randrange(n)] for _ in range(n)]
        figures = _Counts(sample).figures()
        for s in stats:
            draws[s].append(figures[s])
    out: dict[str, Interval] = {}
    for s, values in draws.items():
        values.sort()
        low = values[int(0.025 * (resamples - 1))]
        high = values[math.ceil(0.975 * (resamples - 1))]
        out[s] = Interval(low=low, high=high, method="bootstrap")
    return out


def _wilson(num: int, den: int) -> Interval:
    low, high = wilson_interval(num, den)
    return Interval(low=low, high=high, method="wilson")


def compute_metrics(
    rows: Iterable[Row],
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_BOOTSTRAP,
) -> Metrics:
    """Metrics of `(prediction, truth, domain)` rows; never raises on empty or degenerate input."""
    rows = list(rows)
    decided = [(d is Decision.PASS, t is Label.PASS) for d, t, _ in rows if d.is_decided]
    counts = _Counts(decided)
    figures = counts.figures()
    n = len(rows)
    n_error = sum(1 for d, _, _ in rows if d is Decision.ERROR)
    n_abstain = sum(1 for d, _, _ in rows if d is Decision.ABSTAIN)
    coverage = counts.ratio("coverage", len(decided), n)
    tp, fp, tn, fn = counts.tp, counts.fp, counts.tn, counts.fn
    ci = {
        "coverage": _wilson(len(decided), n),
        "accuracy": _wilson(tp + tn, len(decided)),
        "precision": _wilson(tp, tp + fp),
        "recall": _wilson(tp, tp + fn),
        "recall_fail": _wilson(tn, tn + fp),
    }
    ci.update(_bootstrap(decided, ("balanced_accuracy", "gate_score"), seed, resamples))
    return Metrics(
        n=n,
        n_error=n_error,
        n_abstain=n_abstain,
        n_decided=len(decided),
        coverage=coverage,
        tp=tp,
        fp=fp,
        tn=tn,
        fn=fn,
        undefined=sorted(set(counts.undefined)),
        ci=ci,
        bootstrap_seed=seed,
        bootstrap_resamples=resamples,
        per_domain=_per_domain(rows),
        **figures,
    )


def _per_domain(rows: Sequence[Row]) -> dict[str, DomainMetrics]:
    by_domain: dict[str, list[Row]] = {}
    for row in rows:
        by_domain.setdefault(row[2] or "unknown", []).append(row)
    out: dict[str, DomainMetrics] = {}
    for domain in sorted(by_domain):
        group = by_domain[domain]
        decided = [(d, t) for d, t, _ in group if d.is_decided]
        correct = sum(1 for d, t in decided if d.value == t.value)
        out[domain] = DomainMetrics(
            n=len(group),
            n_decided=len(decided),
            correct=correct,
            accuracy=correct / len(decided) if decided else 0.0,
        )
    return out

