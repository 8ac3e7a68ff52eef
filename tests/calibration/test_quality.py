"""The calibration-quality measures against hand-computed values."""

from __future__ import annotations

import pytest

from judge_runner.calibration import Scored
from judge_runner.calibration.quality import quality


def test_hand_computed_brier_ece_aurc() -> None:
    cases = [Scored(1.0, True), Scored(1.0, False), Scored(0.6, True), Scored(0.55, False)]
    q = quality(cases, bins=5)
    assert q is not None
    # Brier: (0² + 1² + 0.4² + 0.55²) / 4
    assert q.brier == pytest.approx((0 + 1 + 0.16 + 0.3025) / 4, abs=1e-6)
    # bins of width 0.1 over [0.5, 1]: {0.55} in bin 0, {0.6} in bin 1, {1.0, 1.0} in bin 4
    assert q.ece == pytest.approx(0.25 * 0.55 + 0.25 * 0.4 + 0.5 * 0.5, abs=1e-6)
    # the tie at 1.0 is decided at once: risk 1/2 for both of its coverage steps,
    # then 1/3 at 0.6 and 2/4 at 0.55
    assert q.aurc == pytest.approx((0.5 + 0.5 + 1 / 3 + 0.5) / 4, abs=1e-6)
    assert (q.n, q.accuracy, q.distinct) == (4, 0.5, 3)


def test_a_confidence_that_ranks_right_cases_first_has_the_lower_aurc() -> None:
    good = [Scored(0.9, True), Scored(0.8, True), Scored(0.6, False), Scored(0.55, False)]
    bad = [Scored(0.9, False), Scored(0.8, False), Scored(0.6, True), Scored(0.55, True)]
    q_good, q_bad = quality(good), quality(bad)
    assert q_good is not None and q_bad is not None
    assert q_good.accuracy == q_bad.accuracy == 0.5
    assert q_good.aurc < 0.5 < q_bad.aurc
    # a constant confidence scores the error rate, whatever its value
    flat = quality([Scored(0.7, c.correct) for c in good])
    assert flat is not None and flat.aurc == 0.5 and flat.distinct == 1


def test_no_cases_and_bad_bins() -> None:
    assert quality([]) is None
    with pytest.raises(ValueError, match="bins"):
        quality([Scored(0.7, True)], bins=0)
