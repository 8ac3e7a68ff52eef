"""Success@n against a hand-computed small pool."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label
from judge_runner.judges import Decision, Verdict
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
