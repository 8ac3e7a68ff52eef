"""AUC, pair analysis and human agreement against hand-computed values."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label as Outcome
from judge_runner.checklist.analyze import (
    HumanPreference,
    PairRun,
    auc,
    human_agreement,
    pair_analysis,
)

P, F = Outcome.PASS, Outcome.FAIL


def test_auc_with_ties() -> None:
    # PASS {0.9, 0.5, 0.5} vs FAIL {0.5, 0.2}: 6 pairs, wins 1+1+1+1, ties 0.5+0.5 -> 5/6
    r = auc([(0.9, P), (0.5, P), (0.5, P), (0.5, F), (0.2, F), (None, F)])
    assert r.auc == pytest.approx(5 / 6)
    assert (r.n_pass, r.n_fail, r.n_unscored) == (3, 2, 1)


def test_auc_edges() -> None:
    assert auc([(0.1, P), (0.9, F)]).auc == 0.0
    assert auc([(0.4, P), (0.4, F)]).auc == 0.5
    assert auc([(0.4, P)]).auc is None


def run(case: str, task: str, with_skills: bool, outcome: Outcome, score: float | None,
        model: str = "m") -> PairRun:
    return PairRun(case_id=case, task=task, model=model, with_skills=with_skills,
                   outcome=outcome, score=score)


POOL = [
    run("a1", "t1", False, F, 0.2), run("a2", "t1", False, F, 0.5),
    run("b1", "t1", True, P, 0.9), run("b2", "t1", True, F, 0.3),
    run("h1", "t1", True, F, None),  # unscored: unmatched
    run("c1", "t2", False, P, 1.0), run("c2", "t2", False, F, 0.25),
    run("d1", "t2", True, F, 0.5), run("d2", "t2", True, F, 0.75),
    run("d3", "t2", True, F, 0.1),  # no partner left
    run("e1", "t3", False, F, 0.4), run("f1", "t3", True, F, 0.45),
    run("g1", "t3", False, F, 0.1, model="other"),  # no with-skill run of that model
]


def test_pair_analysis_hand_built_pool() -> None:
    r = pair_analysis(POOL)
    got = {(p.without_case, p.with_case): (p.transition, round(p.change, 6)) for p in r.pairs}
    assert got == {
        ("a1", "b1"): ("FAIL→PASS", 0.7),
        ("a2", "b2"): ("FAIL→FAIL", -0.2),
        ("c1", "d1"): ("PASS→FAIL", -0.5),
        ("c2", "d2"): ("FAIL→FAIL", 0.5),
        ("e1", "f1"): ("FAIL→FAIL", 0.05),
    }
    assert (r.n_pairs, r.n_unmatched) == (5, 3)
    ff = r.transitions["FAIL→FAIL"]
    assert ff.n == 3
    assert ff.median_change == pytest.approx(0.05)
    assert ff.share_improved == pytest.approx(1 / 3)
    assert ff.share_regressed == pytest.approx(1 / 3)
    assert r.transitions["FAIL→PASS"].median_change == pytest.approx(0.7)
    assert r.transitions["PASS→FAIL"].median_change == pytest.approx(-0.5)
    assert r.transitions["PASS→PASS"].n == 0
    assert r.transitions["PASS→PASS"].median_change is None


def test_human_agreement() -> None:
    scores: dict[str, float | None] = {"a": 0.5, "b": 0.2, "c": 0.5, "d": None}
    prefs = [
        HumanPreference(a="a", b="b", preferred="a"),  # agree
        HumanPreference(a="b", b="a", preferred="b"),  # agree
        HumanPreference(a="a", b="c", preferred="a"),  # score tie: half
        HumanPreference(a="a", b="b", preferred="b"),  # disagree
        HumanPreference(a="a", b="b", preferred="tie"),  # skipped
        HumanPreference(a="a", b="d", preferred="a"),  # unscored
    ]
    r = human_agreement(prefs, scores)
    assert r.agreement == pytest.approx(2.5 / 4)
    assert (r.n_pairs, r.n_human_ties, r.n_missing) == (4, 1, 1)
