"""Success@n against a hand-computed small pool."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label
from judge_runner.core import Decision, Verdict
from judge_runner.runs.records import CaseRecord
from judge_runner.runs.select import ORACLE, RANDOM, select

P, F = Decision.PASS, Decision.FAIL


def _rec(case_id: str, task: str, label: Label, decision: Decision) -> CaseRecord:
    return CaseRecord(case_id=case_id, task=task, domain=None, label=label, decision=decision,
                      correct=decision.value == label.value,
                      verdict=Verdict(case_id=case_id, judge="j", decision=decision))


# task A: x1 pass (judged pass), x2 fail (judged pass), x3 fail (judged fail)
# task B: y1 pass (judged fail), y2 fail (judged error → not predicted pass)
POOL = [
    _rec("x1", "A", Label.PASS, P), _rec("x2", "A", Label.FAIL, P), _rec("x3", "A", Label.FAIL, F),
    _rec("y1", "B", Label.PASS, F), _rec("y2", "B", Label.FAIL, Decision.ERROR),
]
# hand-computed expectations, n = 1, 2, 3 (n=3 takes all of A and, capped, all of B)
HAND = {
    "j": [(1 / 3 + 1 / 2) / 2, (1 / 2 + 1 / 2) / 2, (1 / 2 + 1 / 2) / 2],
    ORACLE: [(1 / 3 + 1 / 2) / 2, (2 / 3 + 1) / 2, 1.0],
    RANDOM: [(1 / 3 + 1 / 2) / 2, (1 / 3 + 1 / 2) / 2, (1 / 3 + 1 / 2) / 2],
}


def test_expected_curves_match_hand_computation() -> None:
    result = select({"j": POOL}, n_max=3, repeats=2, seed=0)
    curves = {c.selector: c for c in result.curves}
    assert set(curves) == {"j", ORACLE, RANDOM}
    for name, values in HAND.items():
        assert curves[name].expected == pytest.approx(values), name
    assert (result.tasks, result.trajectories) == (2, 5)


def test_sampled_curves_converge_and_are_exact_where_no_chance_is_left() -> None:
    result = select({"j": POOL}, n_max=3, repeats=3000, seed=1)
    curves = {c.selector: c for c in result.curves}
    for name, values in HAND.items():
        assert curves[name].sampled == pytest.approx(values, abs=0.03), name
    assert curves[ORACLE].sampled[2] == 1.0


def test_sampling_is_seeded_and_paired() -> None:
    a = select({"j": POOL, "k": POOL}, n_max=3, repeats=4, seed=7)
    b = select({"j": POOL, "k": POOL}, n_max=3, repeats=4, seed=7)
    assert a == b
    curves = {c.selector: c.sampled for c in a.curves}
    assert curves["j"] == curves["k"]  # identical judges on paired samples: identical curves
    seeds = {tuple(select({"j": POOL}, n_max=3, repeats=4, seed=s).curves[0].sampled)
             for s in range(6)}
    assert len(seeds) > 1


def test_runs_must_share_labeled_cases() -> None:
    other = [_rec("z", "C", Label.PASS, P)]
    with pytest.raises(ValueError, match="share no labeled case"):
        select({"j": POOL, "k": other})


def _scored(case_id: str, task: str, label: Label, score: float | None) -> CaseRecord:
    record = _rec(case_id, task, label, P if score is not None and score >= 0.5 else F)
    return record.model_copy(update={"verdict": record.verdict.model_copy(
        update={"score": score})})


# ranked by score: task A: x1 pass 0.9, x2 fail 0.6, x3 fail 0.2; task B: y1 pass 0.7, y2 fail
# 0.7 (a tie), y3 fail unscored (ranks lowest).
SCORED = [_scored("x1", "A", Label.PASS, 0.9), _scored("x2", "A", Label.FAIL, 0.6),
          _scored("x3", "A", Label.FAIL, 0.2), _scored("y1", "B", Label.PASS, 0.7),
          _scored("y2", "B", Label.FAIL, 0.7), _scored("y3", "B", Label.FAIL, None)]
# n=1: a uniform pick: A 1/3, B 1/3. n=2: A: {x1,x2} 1, {x1,x3} 1, {x2,x3} 0 -> 2/3;
# B: {y1,y2} 1/2 (the tie), {y1,y3} 1, {y2,y3} 0 -> 1/2. n=3: A 1; B the tie -> 1/2.
RANKED = [(1 / 3 + 1 / 3) / 2, (2 / 3 + 1 / 2) / 2, (1 + 1 / 2) / 2]
# by decision, A at n=2 picks uniformly among the predicted passes x1, x2: {x1,x2} 1/2 -> 1/2


def test_ranking_by_score_picks_the_highest_with_ties_uniform() -> None:
    result = select({"k": SCORED}, n_max=3, repeats=3000, seed=3, by_score=frozenset({"k"}))
    curve = next(c for c in result.curves if c.selector == "k")
    assert curve.rule == "score"
    assert curve.expected == pytest.approx(RANKED)
    assert curve.sampled == pytest.approx(RANKED, abs=0.03)
    # by decision the same run picks uniformly among x1, x2 (predicted pass) in A: different
    by_decision = next(c for c in select({"k": SCORED}, n_max=3).curves if c.selector == "k")
    assert by_decision.rule == "decision"
    assert by_decision.expected[1] == pytest.approx((1 / 2 + 1 / 2) / 2)
