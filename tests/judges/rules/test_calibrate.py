"""Fitting the log-odds combination (weights, scale, offset), and strict leave-one-task-out."""

from __future__ import annotations

from judge_runner.calibration import FitPrior
from judge_runner.cases import Label
from judge_runner.core import Decision, Outcome
from judge_runner.judges.rules.calibrate import (
    PRIOR,
    SCALE_AND_OFFSET,
    fit,
    free_weights,
    leave_one_task_out,
    signs,
)
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.optimizer import DevResult
from judge_runner.judges.rules.spec import (
    CheckSpec,
    EvidenceKind,
    RuleSet,
    ScoreMethod,
    ScoreSpec,
    VerdictSpec,
    load_rules,
)
from tests.conftest import REPO

V2 = load_rules(REPO / "judgeskills" / "v2", known_checks())
S, R = Outcome.SUPPORTS, Outcome.REFUTES


def spec(check_id: str, weight: float = 1.0, support_weight: float | None = None,
         task_critical: bool = False) -> CheckSpec:
    return CheckSpec(id=check_id, description=check_id, evidence=EvidenceKind.TRAJECTORY,
                     weight=weight, support_weight=support_weight, task_critical=task_critical)


# signal predicts the label, noise does not, silent never fires, gate supports for nothing
RULES = RuleSet(
    verdict=VerdictSpec(pass_threshold=0.5, min_support_weight=0.0, abstain_margin=0.15),
    score=ScoreSpec(method=ScoreMethod.LOG_ODDS),
    check=[spec("signal"), spec("noise"), spec("silent", 2.0),
           spec("gate", 3.0, support_weight=0.0), spec("both", 1.5, support_weight=0.5)])


def case(case_id: str, label: Label, **findings: Outcome) -> DevResult:
    return DevResult(case_id=case_id, label=label, findings=findings)


def pool(copies: int) -> list[DevResult]:
    """Per label 10·copies cases: signal agrees with the label in 4 of 5, noise supports in half
    of each (label, signal) cell, so it says nothing of the label."""
    cases: list[DevResult] = []
    for label in (Label.PASS, Label.FAIL):
        for agrees in (True, True, True, True, False):
            signal = S if (label is Label.PASS) == agrees else R
            for noise in (S, R):
                cases += [case(f"{label.value}{len(cases):03d}", label, signal=signal,
                               noise=noise) for _ in range(copies)]
    return cases


def test_free_weights_keep_the_skills_shape() -> None:
    free = {(w.check, w.support): w.prior for w in free_weights(RULES)}
    # one number for both sides unless the check has its own support weight; a gate's 0 stays
    assert free == {("signal", False): 1.0, ("noise", False): 1.0, ("silent", False): 2.0,
                    ("gate", False): 3.0, ("both", False): 1.5, ("both", True): 0.5}
    order = free_weights(RULES)
    row = signs(RULES, order, {"signal": S, "gate": S, "both": R, "noise": Outcome.INCONCLUSIVE})
    assert dict(zip([(w.check, w.support) for w in order], row, strict=True)) == {
        ("signal", False): 1.0, ("noise", False): 0.0, ("silent", False): 0.0,
        ("gate", False): 0.0, ("both", False): -1.0, ("both", True): 0.0}
    assert signs(RULES, order, {"both": S, "gate": R})[-3:] == [-1.0, 0.0, 1.0]


def test_the_fit_recovers_the_signal_and_the_noise_loses_weight() -> None:
    fitted = fit(RULES, pool(5))
    signal, noise = fitted.weights["signal"], fitted.weights["noise"]
    assert signal > 1.0 > noise  # both were 1 by hand
    scale = fitted.rules.score.scale
    # the signal's log-odds, 4:1, is ln 4 = 1.386; the noise's is 0
    assert abs(scale * signal - 1.386) < 0.1 and scale * noise < 0.25
    assert fitted.weights["silent"] == 2.0 and fitted.weights["gate"] == 3.0  # never fired
    assert fitted.support_weights == {"both": 0.5}
    assert abs(fitted.rules.score.offset) < 1e-6  # symmetric data: no offset
    assert fitted.rules.by_id("signal").weight == signal  # the rules carry the fitted weights
    assert fitted.rules.by_id("gate").support_weight == 0.0
    assert fit(RULES, list(reversed(pool(5)))) == fitted  # deterministic, order-free


def test_the_penalty_bounds_what_a_few_cases_move() -> None:
    two = [case("a", Label.PASS, signal=S), case("b", Label.FAIL, signal=R)]
    fitted = fit(RULES, two)
    moved = fitted.weights["signal"] - 1.0
    # |w − w₀| ≤ weight_sd² · scale · (balanced weight of the cases it fired in: 1 + 1)
    assert PRIOR.weight_sd is not None
    assert 0 < moved <= PRIOR.weight_sd ** 2 * fitted.rules.score.scale * 2 + 1e-6
    assert fitted.weights["noise"] == 1.0  # no case to move it
    more = fit(RULES, [case(f"{c.case_id}{i}", c.label, **c.findings)
                       for i in range(20) for c in two])
    assert more.weights["signal"] - 1.0 > 2 * moved  # more cases, further from the prior
    loose = fit(RULES, two, FitPrior(weight_sd=2.0))
    assert loose.weights["signal"] - 1.0 > 2 * moved  # a weaker prior lets them move further


def test_scale_and_offset_only_keep_the_skills_weights() -> None:
    fitted = fit(RULES, pool(5), SCALE_AND_OFFSET)
    assert fitted.weights == {} and fitted.support_weights == {}
    assert fitted.rules.check == RULES.check
    assert fitted.rules.score.scale != 1.0  # the scale alone absorbs what it can
    separable = [case("p", Label.PASS, signal=S)] * 6 + [case("f", Label.FAIL, signal=R)] * 6
    bounded = fit(RULES, [*separable, case("x", Label.FAIL, signal=S),
                          case("y", Label.PASS, signal=R)], SCALE_AND_OFFSET)
    assert 1.0 < bounded.rules.score.scale < 3.0  # separable in the bulk, the prior keeps it


def test_without_both_labels_the_fit_is_the_prior_and_critical_cases_are_ignored() -> None:
    critical = RuleSet(verdict=RULES.verdict, score=RULES.score,
                       check=[*RULES.check, spec("fatal", 2.0, task_critical=True)])
    only_pass = [case(f"p{i}", Label.PASS, signal=S) for i in range(3)]
    only_pass.append(case("f", Label.FAIL, signal=R, fatal=R))  # fails whatever the weights
    prior = fit(critical, only_pass)
    assert (prior.rules.score.scale, prior.rules.score.offset) == (1.0, 0.0)
    assert prior.weights["signal"] == 1.0 and prior.rules.check == critical.check
    guarded = fit(RULES, [*only_pass[:3], case("g", Label.FAIL, no_judge_address=R)])
    assert guarded.rules.score.scale == 1.0  # the judge-address guard's refutation is critical


def test_class_balance_makes_the_fit_independent_of_the_pass_rate() -> None:
    passed, failed = case("p", Label.PASS, signal=S), case("f", Label.FAIL)
    even = [passed] * 3 + [failed] * 3
    skewed = [passed] * 5 + [failed] * 1  # same number of cases, another pass rate
    assert fit(RULES, even) == fit(RULES, skewed)


def test_leave_one_task_out_never_fits_on_the_held_out_task() -> None:
    good = {"last_test_passed": S}
    bad = {"last_test_passed": R}
    results = [DevResult(case_id=f"a{i}", label=Label.PASS, findings=good) for i in range(3)]
    results += [DevResult(case_id=f"b{i}", label=Label.FAIL, findings=bad) for i in range(3)]
    # task "t" contradicts the others: were it in its own fit, its weights would move
    results += [DevResult(case_id="t0", label=Label.FAIL, findings=good),
                DevResult(case_id="t1", label=Label.PASS, findings=bad)]
    task_of = {r.case_id: ("t" if r.case_id.startswith("t") else r.case_id) for r in results}
    for prior in (PRIOR, SCALE_AND_OFFSET):
        held, fits = leave_one_task_out(V2, results, task_of, prior)
        assert [h.case_id for h in held] == sorted(r.case_id for r in results)
        assert fits["t"] == fit(V2, [r for r in results if task_of[r.case_id] != "t"], prior)
        assert fits["t"] != fit(V2, results, prior)
        by_id = {h.case_id: h for h in held}
        assert by_id["t0"].forced is Decision.PASS and by_id["t1"].forced is Decision.FAIL
