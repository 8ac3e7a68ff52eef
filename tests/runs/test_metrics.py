"""Metrics against hand-computed values, including the degenerate cases."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label
from judge_runner.judges import Decision
from judge_runner.runs.metrics import compute_metrics, gate_score, wilson_interval

P, F, A, E = Decision.PASS, Decision.FAIL, Decision.ABSTAIN, Decision.ERROR
LP, LF = Label.PASS, Label.FAIL


def _rows() -> list[tuple[Decision, Label, str | None]]:
    # tp=3 (finance 2, energy 1), fp=2, tn=4, fn=1, one error, one abstain
    return [
        (P, LP, "finance"), (P, LP, "finance"), (P, LP, "energy"),
        (P, LF, "energy"), (P, LF, "finance"),
        (F, LF, "energy"), (F, LF, "energy"), (F, LF, "finance"), (F, LF, None),
        (F, LP, "finance"),
        (E, LP, "finance"), (A, LF, "energy"),
    ]


def test_hand_computed_table() -> None:
    m = compute_metrics(_rows())
    assert (m.n, m.n_error, m.n_abstain, m.n_decided) == (12, 1, 1, 10)
    assert (m.tp, m.fp, m.tn, m.fn) == (3, 2, 4, 1)
    assert m.coverage == pytest.approx(10 / 12)
    assert m.precision == pytest.approx(0.6)
    assert m.precision_pass == m.precision
    assert m.recall == pytest.approx(0.75)
    assert m.recall_fail == pytest.approx(4 / 6)
    assert m.f1 == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))
    assert m.accuracy == pytest.approx(0.7)
    assert m.balanced_accuracy == pytest.approx((0.75 + 4 / 6) / 2)
    assert m.gate_score == pytest.approx(0.5 * (0.75 + 4 / 6) / 2 + 0.3 * 4 / 6 + 0.2 * 0.6)
    assert m.undefined == []


def test_per_domain_accuracy_ignores_errors_and_abstentions() -> None:
    m = compute_metrics(_rows())
    # finance: 2 tp, 1 fp, 1 tn, 1 fn decided (+1 error) → 3/5
    assert m.per_domain["finance"].n == 6
    assert m.per_domain["finance"].n_decided == 5
    assert m.per_domain["finance"].accuracy == pytest.approx(3 / 5)
    # energy: tp, fp, tn, tn decided (+1 abstain) → 3/4
    assert m.per_domain["energy"].accuracy == pytest.approx(3 / 4)
    assert m.per_domain["unknown"].accuracy == 1.0


def test_wilson_matches_known_value() -> None:
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(0.3968, abs=1e-4)
    assert high == pytest.approx(0.8922, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    m = compute_metrics(_rows())
    assert (m.ci["accuracy"].low, m.ci["accuracy"].high) == pytest.approx((low, high))


def test_no_predicted_pass_flags_precision() -> None:
    m = compute_metrics([(F, LP, None), (F, LP, None), (F, LF, None), (F, LF, None), (F, LF, None)])
    assert (m.tp, m.fp, m.tn, m.fn) == (0, 0, 3, 2)
    assert m.precision == 0.0 and "precision" in m.undefined
    assert m.recall == 0.0 and "recall" not in m.undefined
    assert m.recall_fail == 1.0
    assert m.f1 == 0.0 and "f1" not in m.undefined
    assert m.accuracy == pytest.approx(0.6)
    assert m.balanced_accuracy == pytest.approx(0.5)
    assert m.gate_score == pytest.approx(0.5 * 0.5 + 0.3 * 1.0 + 0.2 * 0.0)


def test_all_errors_are_coverage_zero_never_fail() -> None:
    m = compute_metrics([(E, LP, "energy"), (E, LF, "energy"), (E, LF, None)])
    assert (m.n, m.n_error, m.n_decided) == (3, 3, 0)
    assert (m.tp, m.fp, m.tn, m.fn) == (0, 0, 0, 0)
    assert m.coverage == 0.0 and "coverage" not in m.undefined
    assert m.accuracy == 0.0 and m.gate_score == 0.0
    assert {"precision", "recall", "recall_fail", "f1", "accuracy"} <= set(m.undefined)
    assert m.per_domain["energy"].n_decided == 0


def test_empty_input() -> None:
    m = compute_metrics([])
    assert m.n == 0 and "coverage" in m.undefined


def test_gate_score_formula() -> None:
    assert gate_score(1.0, 0.0, 0.0) == pytest.approx(0.5)
    assert gate_score(0.0, 1.0, 0.0) == pytest.approx(0.3)
    assert gate_score(0.0, 0.0, 1.0) == pytest.approx(0.2)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    a = compute_metrics(_rows(), seed=3, resamples=500)
    b = compute_metrics(_rows(), seed=3, resamples=500)
    c = compute_metrics(_rows(), seed=4, resamples=500)
    assert a.ci == b.ci
    assert a.ci != c.ci
    assert a.bootstrap_seed == 3
    ba = a.ci["balanced_accuracy"]
    assert ba.method == "bootstrap" and ba.low <= a.balanced_accuracy <= ba.high
