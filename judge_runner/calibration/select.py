"""Choosing the threshold: fixed-sequence testing with an exact binomial test.

Given labelled dev cases, each with the judge's confidence and whether its (forced) decision
agreed with the verifier, the candidate thresholds are the distinct confidences, highest first.
At threshold λ the judge would decide the n(λ) cases with confidence ≥ λ, e(λ) of them wrongly.
A threshold deciding fewer than n_min = ⌈ln δ / ln(1 − α)⌉ cases could not pass even with no
error (0 errors in n has p-value (1 − α)^n), so the candidates start at the first threshold
deciding n_min cases; which thresholds are candidates depends on the confidences and their
count only, never on the labels, so the sequence is fixed before any test looks at an error.
The null hypothesis "the risk at λ exceeds α" is rejected when

    p(λ) = P(Binomial(n(λ), α) ≤ e(λ)) ≤ δ

(equivalently: the one-sided Clopper–Pearson upper bound on the risk, at level 1 − δ, is at
most α). The thresholds are tested in order and the sequence stops at the first one not
rejected; the threshold is the lowest rejected one. Testing in a fixed order at level δ each
keeps the chance of choosing any threshold whose true risk exceeds α at most δ, so on new
cases exchangeable with the dev cases P(agreement on decided cases ≥ 1 − α) ≥ 1 − δ. When the
first test is not rejected, no threshold passes: coverage 0, no threshold.

The binomial tail and the beta quantile come from scipy.stats, imported where they are used
(scipy and numpy take a while to import: commands that never calibrate do not pay for them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge_runner.calibration.model import ThresholdTest

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


@dataclass(frozen=True)
class Scored:
    """One labelled dev case: the judge's confidence and whether its decision was right."""

    confidence: float
    correct: bool


@dataclass(frozen=True)
class Selection:
    threshold: float | None
    coverage: float
    agreement: float | None  # on the cases decided at the threshold
    tests: list[ThresholdTest]
    min_n: int  # decided cases a threshold needs to be tested


def min_cases(alpha: float, delta: float) -> int:
    """The fewest decided cases with which a threshold can pass: (1 − α)^n ≤ δ."""
    return max(1, math.ceil(math.log(delta) / math.log(1.0 - alpha) - 1e-9))


def p_value(n: int, errors: int, alpha: float) -> float:
    """P(Binomial(n, α) ≤ errors): how likely so few errors are if the risk were α."""
    from scipy import stats

    return float(stats.binom.cdf(errors, n, alpha))


def error_bound(n: int, errors: int, delta: float) -> float:
    """One-sided Clopper–Pearson upper bound on the error rate at confidence 1 − δ."""
    import numpy as np

    return float(_bounds(np.array([n]), np.array([errors]), delta)[0])


def _bounds(n: npt.NDArray[np.int64], errors: npt.NDArray[np.int64],
            delta: float) -> npt.NDArray[np.float64]:
    import numpy as np
    from scipy import stats

    bound = np.ones(len(n))
    some_right = errors < n
    bound[some_right] = stats.beta.ppf(1.0 - delta, errors[some_right] + 1,
                                       n[some_right] - errors[some_right])
    return bound


def select_threshold(cases: Sequence[Scored], alpha: float, delta: float) -> Selection:
    """The lowest threshold the fixed sequence reaches (see the module docstring). Every
    candidate's test is computed at once (one vectorised binomial tail); the sequence is then
    read in order up to its first failure, which is recorded too."""
    import numpy as np
    from scipy import stats

    if not 0 < alpha < 1 or not 0 < delta < 1:
        raise ValueError(f"alpha and delta must lie in (0, 1), got {alpha}, {delta}")
    min_n = min_cases(alpha, delta)
    if len(cases) < min_n:
        return Selection(threshold=None, coverage=0.0, agreement=None, tests=[], min_n=min_n)
    confidence = np.array([c.confidence for c in cases], dtype=float)
    wrong = np.array([not c.correct for c in cases], dtype=np.int64)
    order = np.argsort(-confidence, kind="stable")
    confidence, wrong = confidence[order], wrong[order]
    # a threshold decides every case of its confidence at once: test at the last of each tie
    last = np.flatnonzero(np.append(confidence[1:] != confidence[:-1], True))
    last = last[last + 1 >= min_n]
    n = last + 1
    errors = np.cumsum(wrong)[last]
    p = stats.binom.cdf(errors, n, alpha)
    passed = p <= delta
    failed = np.flatnonzero(~passed)
    stop = int(failed[0]) + 1 if len(failed) else len(last)
    bounds = _bounds(n[:stop], errors[:stop], delta)
    tests = [ThresholdTest(threshold=float(confidence[last[i]]), n=int(n[i]),
                           errors=int(errors[i]), p_value=float(p[i]),
                           error_bound=float(bounds[i]), passed=bool(passed[i]))
             for i in range(stop)]
    chosen = [t for t in tests if t.passed]
    if not chosen:
        return Selection(threshold=None, coverage=0.0, agreement=None, tests=tests,
                         min_n=min_n)
    best = chosen[-1]
    return Selection(threshold=best.threshold, coverage=round(best.n / len(cases), 6),
                     agreement=round(1 - best.errors / best.n, 6), tests=tests, min_n=min_n)
