"""The verdict formula, on hand-made inspection logs."""

from __future__ import annotations

import math

from judge_runner.judges import Decision, Inspection, Outcome
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.combine import combine
from judge_runner.judges.rules.spec import (
    RuleSet,
    ScoreMethod,
    ScoreSpec,
    VerdictSpec,
    load_rules,
)
from tests.conftest import REPO

BASE = load_rules(REPO / "judgeskills" / "v1", known_checks())  # the weighted formula


def rules(threshold: float = 0.6, min_support: float = 1.0) -> RuleSet:
    verdict = VerdictSpec(pass_threshold=threshold, min_support_weight=min_support,
                          abstain_margin=0.05)
    return BASE.model_copy(update={"verdict": verdict})


def log(*entries: tuple[Outcome, bool]) -> list[Inspection]:
    return [Inspection(id=f"I{n}", plan_item=f"P{n}", check="c", finding="f", outcome=o,
                       critical=critical) for n, (o, critical) in enumerate(entries, 1)]


def weights(entries: list[Inspection], *values: float) -> dict[str, float]:
    return {i.id: w for i, w in zip(entries, values, strict=True)}


def test_weighted_share_above_threshold_passes() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.SUPPORTS, False), (Outcome.REFUTES, False))
    result = combine(rules(0.6), entries, weights(entries, 2.0, 1.0, 1.0), False)
    assert result.decision is Decision.PASS and result.score == 0.75
    assert result.citations == ["I1", "I2"]


def test_weighted_share_below_threshold_fails_citing_refutations() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, False))
    result = combine(rules(0.6), entries, weights(entries, 1.0, 3.0), False)
    assert result.decision is Decision.FAIL and result.score == 0.25
    assert result.citations == ["I2"]


def test_critical_refutation_fails_regardless_of_support() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, True), (Outcome.INCONCLUSIVE, True))
    result = combine(rules(0.1), entries, weights(entries, 100.0, 0.1, 5.0), False)
    assert result.decision is Decision.FAIL and result.score == 0.0
    assert result.citations == ["I2"] and "task-critical" in result.rationale


def test_inconclusive_findings_count_in_neither_sum() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.INCONCLUSIVE, False))
    result = combine(rules(0.6), entries, weights(entries, 1.0, 50.0), False)
    assert result.decision is Decision.PASS and result.score == 1.0


def test_pass_needs_enough_supporting_weight() -> None:
    entries = log((Outcome.SUPPORTS, False))
    result = combine(rules(0.6, min_support=2.0), entries, weights(entries, 1.0), False)
    assert result.decision is Decision.FAIL and "supporting weight" in result.rationale


def test_no_evidence_fails_unless_abstaining() -> None:
    entries = log((Outcome.INCONCLUSIVE, False))
    assert combine(rules(0.5), entries, weights(entries, 1.0), False).decision is Decision.FAIL
    abstained = combine(rules(0.5), entries, weights(entries, 1.0), True)
    assert abstained.decision is Decision.ABSTAIN and abstained.citations == ["I1"]


def test_abstain_only_near_the_threshold() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, False))
    near = combine(rules(0.52), entries, weights(entries, 1.0, 1.0), True)
    far = combine(rules(0.9), entries, weights(entries, 1.0, 1.0), True)
    assert near.decision is Decision.ABSTAIN and far.decision is Decision.FAIL


def log_odds(scale: float, offset: float, margin: float = 0.15) -> RuleSet:
    return BASE.model_copy(update={
        "verdict": VerdictSpec(pass_threshold=0.5, min_support_weight=0.0,
                               abstain_margin=margin),
        "score": ScoreSpec(method=ScoreMethod.LOG_ODDS, scale=scale, offset=offset)})


def test_log_odds_score_is_the_sigmoid_of_scaled_evidence() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, False))
    result = combine(log_odds(2.0, -0.5), entries, weights(entries, 1.5, 0.5), False)
    expected = 1 / (1 + math.exp(-(2.0 * (1.5 - 0.5) - 0.5)))
    assert math.isclose(result.score, expected) and result.probability == result.score
    assert result.decision is Decision.PASS and result.forced is Decision.PASS
    assert math.isclose(result.confidence(0.5), (expected - 0.5) / 0.5)


def test_log_odds_abstains_near_one_half_and_keeps_the_forced_decision() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, False))
    result = combine(log_odds(1.0, 0.0), entries, weights(entries, 1.0, 1.2), True)
    assert result.decision is Decision.ABSTAIN and result.forced is Decision.FAIL
    forced = combine(log_odds(1.0, 0.0), entries, weights(entries, 1.0, 1.2), False)
    assert forced.decision is Decision.FAIL


def test_a_critical_refutation_fails_with_full_confidence_under_log_odds() -> None:
    entries = log((Outcome.SUPPORTS, False), (Outcome.REFUTES, True))
    result = combine(log_odds(1.0, 5.0), entries, weights(entries, 3.0, 0.1), True)
    assert result.decision is Decision.FAIL and result.critical and result.confidence(0.5) == 1.0
