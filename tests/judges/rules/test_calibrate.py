"""Fitting scale and offset of log-odds scoring, and strict leave-one-task-out."""

from __future__ import annotations

from judge_runner.cases import Label
from judge_runner.judges import Decision, Outcome
from judge_runner.judges.rules.calibrate import Evidence, evidence_of, fit, leave_one_task_out
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.optimizer import DevResult
from judge_runner.judges.rules.spec import load_rules
from tests.conftest import REPO

V2 = load_rules(REPO / "judgeskills" / "v2", known_checks())


def test_support_weight_zero_makes_a_gate() -> None:
    spec = V2.by_id("run_terminated")
    assert spec.weight_for("supports") == 0.0 and spec.weight_for("refutes") == spec.weight
    e, critical = evidence_of(V2, {"run_terminated": Outcome.SUPPORTS,
                                   "last_test_passed": Outcome.SUPPORTS})
    assert e == V2.by_id("last_test_passed").weight and not critical
    e, critical = evidence_of(V2, {"run_terminated": Outcome.REFUTES})
    assert e == -spec.weight and critical


def test_fit_separates_and_the_prior_bounds_it() -> None:
    cases = [Evidence(1.0, False, Label.PASS)] * 6 + [Evidence(-1.0, False, Label.FAIL)] * 6 + [
        Evidence(1.0, False, Label.FAIL), Evidence(-1.0, False, Label.PASS)]
    fitted = fit(cases)
    assert fitted.scale > 1.0 and abs(fitted.offset) < 1e-6  # symmetric data: no offset
    assert fitted.scale < 3.0  # perfectly separable in the bulk, yet the prior keeps it finite
    assert fit(cases) == fitted  # deterministic


def test_fit_without_both_labels_returns_the_prior_and_ignores_critical_cases() -> None:
    only_pass = [Evidence(2.0, False, Label.PASS)] * 3 + [Evidence(-5.0, True, Label.FAIL)]
    prior = fit(only_pass)
    assert prior.scale == 1.0 and prior.offset == 0.0


def test_class_balance_makes_the_offset_independent_of_the_pass_rate() -> None:
    passed, failed = Evidence(1.0, False, Label.PASS), Evidence(0.0, False, Label.FAIL)
    even = [passed] * 3 + [failed] * 3
    skewed = [passed] * 5 + [failed] * 1  # same number of cases, another pass rate
    assert fit(even) == fit(skewed)


def test_leave_one_task_out_never_fits_on_the_held_out_task() -> None:
    good = {"last_test_passed": Outcome.SUPPORTS}
    bad = {"last_test_passed": Outcome.REFUTES}
    results = [DevResult(case_id=f"a{i}", label=Label.PASS, findings=good) for i in range(3)]
    results += [DevResult(case_id=f"b{i}", label=Label.FAIL, findings=bad) for i in range(3)]
    # task "t" contradicts the others: were it in its own fit, its offset would move
    results += [DevResult(case_id="t0", label=Label.FAIL, findings=good),
                DevResult(case_id="t1", label=Label.PASS, findings=bad)]
    task_of = {r.case_id: ("t" if r.case_id.startswith("t") else r.case_id) for r in results}
    held, fits = leave_one_task_out(V2, results, task_of)
    assert [h.case_id for h in held] == sorted(r.case_id for r in results)
    assert fits["t"] == fit([Evidence(*evidence_of(V2, r.findings), label=r.label)
                             for r in results if task_of[r.case_id] != "t"])
    by_id = {h.case_id: h for h in held}
    assert by_id["t0"].forced is Decision.PASS and by_id["t1"].forced is Decision.FAIL
