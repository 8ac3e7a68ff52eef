"""Threshold selection against binomial bounds computed by hand, and the guarantee in simulation.

Hand computations (α = 0.2, δ = 0.1): with no error among n decided cases the p-value is
0.8^n, which is 0.107374 for n = 10 (not ≤ δ: no threshold) and 0.085899 for n = 11 (passes);
with one error among 20 it is 0.8^20 + 20 · 0.2 · 0.8^19 = 0.011529 + 0.057646 = 0.069175. The
one-sided Clopper–Pearson bound with no error is 1 − δ^(1/n).
"""

from __future__ import annotations

import numpy as np
import pytest

from judge_runner.calibration import Scored, error_bound, p_value, select_threshold


def _cases(*groups: tuple[float, int, int]) -> list[Scored]:
    """(confidence, right, wrong) groups."""
    return [Scored(confidence, True) for confidence, right, _ in groups for _ in range(right)] + \
        [Scored(confidence, False) for confidence, _, wrong in groups for _ in range(wrong)]


def test_binomial_tails_match_the_hand_computed_values() -> None:
    assert p_value(10, 0, 0.2) == pytest.approx(0.8 ** 10)
    assert p_value(11, 0, 0.2) == pytest.approx(0.085899, abs=1e-6)
    assert p_value(20, 1, 0.2) == pytest.approx(0.8 ** 20 + 20 * 0.2 * 0.8 ** 19)
    assert p_value(20, 1, 0.2) == pytest.approx(0.069175, abs=1e-6)
    assert error_bound(11, 0, 0.1) == pytest.approx(1 - 0.1 ** (1 / 11))
    assert error_bound(3, 3, 0.1) == 1.0


def test_no_threshold_passes_when_the_sure_cases_are_too_few() -> None:
    """Ten right cases at 0.9 cannot pass (0.8^10 = 0.107 > δ), so 0.9 is no candidate
    (n_min = 11); at 0.7 twenty cases with five wrong: P(Binomial(20, 0.2) <= 5) = 0.804."""
    chosen = select_threshold(_cases((0.9, 10, 0), (0.7, 5, 5)), alpha=0.2, delta=0.1)
    assert chosen.min_n == 11 and p_value(10, 0, 0.2) > 0.1
    assert chosen.threshold is None and chosen.coverage == 0.0 and chosen.agreement is None
    assert [(t.threshold, t.n, t.errors, t.passed) for t in chosen.tests] == [(0.7, 20, 5, False)]
    assert chosen.tests[0].p_value == pytest.approx(0.804208, abs=1e-6)


def test_one_more_right_case_passes_the_first_test() -> None:
    chosen = select_threshold(_cases((0.9, 11, 0), (0.7, 5, 5)), alpha=0.2, delta=0.1)
    assert chosen.threshold == 0.9 and chosen.coverage == round(11 / 21, 6)
    assert chosen.agreement == 1.0
    # the second test: 21 decided, 5 wrong: P(Binomial(21, 0.2) <= 5) ≈ 0.63 > δ: stop
    assert [(t.threshold, t.n, t.errors, t.passed) for t in chosen.tests] == [
        (0.9, 11, 0, True), (0.7, 21, 5, False)]


def test_the_lowest_threshold_of_the_passing_run_is_chosen() -> None:
    chosen = select_threshold(_cases((0.95, 19, 1), (0.8, 5, 0), (0.6, 0, 5)),
                              alpha=0.2, delta=0.1)
    assert chosen.tests[0].p_value == pytest.approx(0.069175, abs=1e-6)
    assert chosen.threshold == 0.8 and chosen.coverage == round(25 / 30, 6)
    assert chosen.agreement == pytest.approx(24 / 25)
    assert [t.passed for t in chosen.tests] == [True, True, False]


def test_the_sequence_stops_at_its_first_failure() -> None:
    """Three wrong cases among the first twelve fail the first test
    (P(Binomial(12, 0.2) <= 3) = 0.795); the 30 right ones below are never reached: that is
    what keeps the error of the whole sequence at δ."""
    chosen = select_threshold(_cases((0.99, 9, 3), (0.9, 30, 0)), alpha=0.2, delta=0.1)
    assert chosen.threshold is None and len(chosen.tests) == 1
    assert chosen.tests[0].p_value == pytest.approx(0.794569, abs=1e-6)


def test_ties_are_decided_together() -> None:
    chosen = select_threshold(_cases((0.9, 11, 1)), alpha=0.2, delta=0.1)
    # one test over all 12 cases: P(Binomial(12, 0.2) <= 1) = 0.8^12 + 12*0.2*0.8^11 = 0.2749
    assert len(chosen.tests) == 1 and chosen.tests[0].n == 12
    assert chosen.tests[0].p_value == pytest.approx(0.8 ** 12 + 12 * 0.2 * 0.8 ** 11)
    assert chosen.threshold is None


def test_too_few_cases_and_invalid_inputs() -> None:
    assert select_threshold([], 0.2, 0.1).threshold is None
    few = select_threshold(_cases((0.99, 10, 0)), 0.2, 0.1)
    assert few.threshold is None and few.tests == [] and few.coverage == 0.0
    with pytest.raises(ValueError, match="alpha and delta"):
        select_threshold(_cases((0.9, 1, 0)), 0.0, 0.1)


def test_the_guarantee_holds_in_simulation() -> None:
    """A synthetic judge whose confidence c is uniform on [0.5, 1] and right with probability c:
    deciding at c ≥ λ its true risk is (1 − λ) / 2, above α = 0.2 exactly when λ < 0.6. Over
    1,000 calibration draws of 150 cases the chosen threshold may violate the guarantee in at
    most δ = 0.1 of the draws, plus binomial slack (3 standard deviations: 0.1 + 3·√(0.09/1000)
    ≈ 0.128)."""
    alpha, delta, draws, n = 0.2, 0.1, 1000, 150
    rng = np.random.default_rng(20260101)
    confidence = rng.uniform(0.5, 1.0, size=(draws, n)).round(4)
    right = rng.uniform(size=(draws, n)) < confidence
    violations = 0
    coverages: list[float] = []
    for c, r in zip(confidence, right, strict=True):
        chosen = select_threshold([Scored(float(x), bool(y)) for x, y in zip(c, r, strict=True)],
                                  alpha, delta)
        if chosen.threshold is not None:
            violations += (1 - chosen.threshold) / 2 > alpha
        coverages.append(chosen.coverage)
    rate = violations / draws
    mean_coverage = float(np.mean(coverages))
    print(f"violations {rate:.3f}, mean dev coverage {mean_coverage:.3f}")
    assert rate <= delta + 3 * (delta * (1 - delta) / draws) ** 0.5
    # the best any valid threshold can do is λ = 0.6: coverage 0.8
    assert 0.2 < mean_coverage < 0.8
