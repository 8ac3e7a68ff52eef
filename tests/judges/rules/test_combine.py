"""The verdict formula, on hand-made inspection logs."""

from __future__ import annotations

from judge_runner.judges.base import Decision, Inspection, Outcome
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.combine import combine
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.spec import RuleSet, VerdictSpec, load_rules

BASE = load_rules(default_skill_dir(), known_checks())


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
