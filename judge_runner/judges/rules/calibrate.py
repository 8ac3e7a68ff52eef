"""Fitting the combination of log-odds scoring (the checks' weights, scale and offset) to
labelled cases, and strict leave-one-task-out.

With ``[score] method = "log_odds"`` a case's pass probability is
``sigmoid(scale · (S − R) + offset)``, S the summed weights of its supporting findings and R of
its refuting ones. The skill sets the weights by hand; `fit` refits, in one step,

- every enabled check's `weight` (what its refutation subtracts, and what its support adds when
  it has no `support_weight` of its own: one number for both sides, as the skill has it);
- the `support_weight` of a check that sets one above 0 (a support weight of 0 marks a gate, a
  check that nearly always supports so that only its refutation says something: it stays 0);
- `scale` and `offset`,

by a penalised, class-balanced logistic regression:

- class-balanced: each label carries half the total weight, so the fitted probability is the one
  a case would have with equal numbers of passes and fails, and 0.5 is the balanced threshold on
  any pool, whatever its pass rate;
- penalised: a Gaussian prior (`FitPrior`) pulls each weight towards the skill's hand-set one
  (sd 0.5), `scale` towards 1 (sd 0.5) and `offset` towards 0 (sd 1). It bounds what a handful of
  cases can do: at the optimum |w − w₀| ≤ weight_sd² · scale · (the balanced weight of the fitted
  cases in which that finding occurred), since no case's residual exceeds 1; a finding that
  never occurs keeps its hand-set weight. As `scale` multiplies every weight, the priors share a
  change common to all checks between the two;
- bounded as `checks.toml` is: weights ≥ 0 (a finding never speaks for the other side),
  0.05 ≤ scale ≤ 10, |offset| ≤ 10;
- cases with a task-critical refutation are left out: they fail whatever the weights.

With `weight_sd` None (`SCALE_AND_OFFSET`) the weights stay the skill's and only scale and offset
are fitted, for comparison. The optimiser is scipy's L-BFGS-B with the exact gradient, started
at the prior's mean; cases are taken in case-id order and the numbers rounded to 6 decimals, so
the same cases give the same fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge_runner.calibration import FitPrior
from judge_runner.core import Decision, Label, Outcome
from judge_runner.judges.rules.optimizer import DevResult, recombine
from judge_runner.judges.rules.spec import RuleSet, ScoreMethod, ScoreSpec

PRIOR = FitPrior(weight_sd=0.5)
SCALE_AND_OFFSET = FitPrior(weight_sd=None)
MIN_SCALE = 0.05
MAX_SCALE = 10.0
MAX_OFFSET = 10.0


@dataclass(frozen=True)
class Weight:
    """One fitted weight: a check's `weight`, or its own `support_weight` (`support`)."""

    check: str
    support: bool
    prior: float  # the skill's value, the prior's mean


def free_weights(rules: RuleSet) -> list[Weight]:
    """The weights of `rules` that `fit` sets, in check order (see the module docstring)."""
    free: list[Weight] = []
    for spec in rules.enabled():
        free.append(Weight(spec.id, False, spec.weight))
        if spec.support_weight:  # None: the support adds `weight`; 0: a gate
            free.append(Weight(spec.id, True, spec.support_weight))
    return free


def signs(rules: RuleSet, free: Sequence[Weight], findings: dict[str, Outcome]) -> list[float]:
    """What each of the `free` weights counts for in S − R of `findings`: +1 when its finding
    supports, −1 when it refutes, 0 otherwise."""
    index = {(w.check, w.support): n for n, w in enumerate(free)}
    row = [0.0] * len(free)
    for spec in rules.enabled():
        outcome = findings.get(spec.id)
        if outcome is Outcome.REFUTES and (spec.id, False) in index:
            row[index[spec.id, False]] -= 1.0
        elif outcome is Outcome.SUPPORTS and spec.support_weight != 0.0:
            own = spec.support_weight is not None
            if (spec.id, own) in index:
                row[index[spec.id, own]] += 1.0
    return row


@dataclass(frozen=True)
class Fit:
    """`rules` with a fitted combination, and the fitted weights (empty when not fitted)."""

    rules: RuleSet
    weights: dict[str, float]  # check id → `weight`
    support_weights: dict[str, float]  # check id → `support_weight`


def fit(rules: RuleSet, cases: Sequence[DevResult], prior: FitPrior = PRIOR) -> Fit:
    """The penalised, class-balanced maximum-likelihood combination (see the module
    docstring); the prior's mean (the skill's weights, scale 1, offset 0) when the cases without
    a task-critical refutation do not hold both labels. Deterministic."""
    free = free_weights(rules) if prior.weight_sd is not None else []
    usable = sorted((c for c in cases
                     if not recombine(rules, c.findings, allow_abstain=False).critical),
                    key=lambda c: c.case_id)
    n_pass = sum(1 for c in usable if c.label is Label.PASS)
    start = [prior.scale, 0.0, *(w.prior for w in free)]
    solution = start
    if n_pass and len(usable) - n_pass:
        solution = _minimise(rules, free, usable, prior, start)
    values = [round(v, 6) + 0.0 for v in solution]  # + 0.0: no "-0.0" in the file
    weights = {w.check: v for w, v in zip(free, values[2:], strict=True) if not w.support}
    support = {w.check: v for w, v in zip(free, values[2:], strict=True) if w.support}
    refitted = rules.reweighted(weights, support)
    score = ScoreSpec(method=ScoreMethod.LOG_ODDS, scale=values[0], offset=values[1])
    return Fit(refitted.model_copy(update={"score": score}), weights, support)


def _minimise(rules: RuleSet, free: Sequence[Weight], cases: Sequence[DevResult],
              prior: FitPrior, start: list[float]) -> list[float]:
    """argmin over (scale, offset, *free weights) of the penalised, class-balanced negative
    log-likelihood of `cases` (both labels present, none critical)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    y = np.array([1.0 if c.label is Label.PASS else 0.0 for c in cases])
    n, n_pass = len(cases), float(y.sum())
    balance = np.where(y == 1.0, n / (2 * n_pass), n / (2 * (n - n_pass)))
    x = np.array([signs(rules, free, c.findings) for c in cases]).reshape(n, len(free))
    base = np.array([_evidence(rules, c.findings) for c in cases])  # at the skill's weights
    w0 = np.array([w.prior for w in free])
    sd_w = prior.weight_sd or 1.0

    def loss(theta: Any) -> tuple[float, Any]:
        scale, offset, w = theta[0], theta[1], theta[2:]
        evidence = base + x @ (w - w0)
        z = scale * evidence + offset
        residual = balance * (expit(z) - y)
        value = (float(np.sum(balance * (np.logaddexp(0.0, z) - y * z)))
                 + (scale - prior.scale) ** 2 / (2 * prior.scale_sd ** 2)
                 + offset ** 2 / (2 * prior.offset_sd ** 2)
                 + float(np.sum((w - w0) ** 2)) / (2 * sd_w ** 2))
        gradient = np.concatenate((
            [residual @ evidence + (scale - prior.scale) / prior.scale_sd ** 2,
             residual.sum() + offset / prior.offset_sd ** 2],
            scale * (x.T @ residual) + (w - w0) / sd_w ** 2))
        return value, gradient

    bounds = [(MIN_SCALE, MAX_SCALE), (-MAX_OFFSET, MAX_OFFSET)] + [(0.0, None)] * len(free)
    result = minimize(loss, np.array(start), jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 1000, "ftol": 1e-14, "gtol": 1e-10})
    return [float(v) for v in result.x]


def _evidence(rules: RuleSet, findings: dict[str, Outcome]) -> float:
    """S − R of `findings` at the weights of `rules`."""
    combined = recombine(rules, findings, allow_abstain=False)
    return combined.support_weight - combined.refute_weight


@dataclass(frozen=True)
class HeldOut:
    """One case decided by a fit that never saw its task."""

    case_id: str
    task: str
    label: Label
    forced: Decision  # without abstention
    decision: Decision  # with abstention (the rule set's abstain_margin)
    confidence: float
    score: float


def leave_one_task_out(rules: RuleSet, results: Sequence[DevResult], task_of: dict[str, str],
                       prior: FitPrior = PRIOR) -> tuple[list[HeldOut], dict[str, Fit]]:
    """Strict leave-one-task-out: for each task, fit the combination on the other tasks' cases
    only (with `prior`: `SCALE_AND_OFFSET` keeps the skill's weights), then decide that task's
    cases. The checks' findings stay as recorded. Returns the held-out decisions in case-id
    order and the fit of each fold."""
    fits: dict[str, Fit] = {}
    held: list[HeldOut] = []
    threshold = rules.verdict.pass_threshold
    for task in sorted({task_of[r.case_id] for r in results}):
        fitted = fit(rules, [r for r in results if task_of[r.case_id] != task], prior)
        fits[task] = fitted
        for r in results:
            if task_of[r.case_id] != task:
                continue
            abstaining = recombine(fitted.rules, r.findings, allow_abstain=True)
            held.append(HeldOut(case_id=r.case_id, task=task, label=r.label,
                                forced=abstaining.forced, decision=abstaining.decision,
                                confidence=abstaining.confidence(threshold),
                                score=abstaining.score))
    return sorted(held, key=lambda h: h.case_id), fits
