"""Fitting the two free numbers of log-odds scoring, and what a fitted rule set decides.

With ``[score] method = "log_odds"`` a case's evidence is E = S − R (summed weights of supporting
minus refuting findings; the weights are set by hand, in log-odds units, and are never fitted)
and its pass probability is ``sigmoid(scale · E + offset)``. Only ``scale`` and ``offset`` are
fitted, by a penalised, class-balanced logistic regression:

- class-balanced: each label carries half the total weight, so the fitted probability is the one
  a case would have with equal numbers of passes and fails, and 0.5 is the balanced threshold on
  any pool, whatever its pass rate;
- penalised: a Gaussian prior pulls ``scale`` towards 1 (the hand-set weights taken at face value)
  and ``offset`` towards 0, so that a handful of cases cannot move them far (a leave-one-task-out
  refit moves them only a little, see scripts/eval_rules.py);
- cases with a task-critical refutation are left out: they fail whatever the score.

The fit is a few Newton steps on two parameters: deterministic and instant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from judge_runner.core import Decision, Label, Outcome
from judge_runner.judges.rules.combine import probability
from judge_runner.judges.rules.optimizer import DevResult, recombine
from judge_runner.judges.rules.spec import RuleSet, ScoreMethod, ScoreSpec

PRIOR_SCALE = 1.0
PRIOR_SD_SCALE = 0.5
PRIOR_SD_OFFSET = 1.0
MIN_SCALE = 0.05
MAX_SCALE = 10.0


@dataclass(frozen=True)
class Evidence:
    """What the fit needs of one labelled case."""

    evidence: float  # S − R
    critical: bool  # a task-critical check refuted
    label: Label


def evidence_of(rules: RuleSet, findings: dict[str, Outcome]) -> tuple[float, bool]:
    """(S − R, any task-critical refutation) of recorded findings (check id → outcome) under the
    enabled checks of `rules`."""
    total = 0.0
    critical = False
    for spec in rules.enabled():
        outcome = findings.get(spec.id)
        if outcome is Outcome.SUPPORTS:
            total += spec.weight_for(outcome.value)
        elif outcome is Outcome.REFUTES:
            total -= spec.weight
            critical = critical or spec.task_critical
    return total, critical


def fit(cases: Sequence[Evidence], *, prior_scale: float = PRIOR_SCALE,
        sd_scale: float = PRIOR_SD_SCALE, sd_offset: float = PRIOR_SD_OFFSET) -> ScoreSpec:
    """The penalised, class-balanced maximum-likelihood (scale, offset); the prior alone when no
    case is usable. Deterministic."""
    usable = [c for c in cases if not c.critical]
    n_pass = sum(1 for c in usable if c.label is Label.PASS)
    n_fail = len(usable) - n_pass
    a, b = prior_scale, 0.0
    if usable and n_pass and n_fail:
        w_pass, w_fail = len(usable) / (2 * n_pass), len(usable) / (2 * n_fail)
        for _ in range(50):
            g_a = -(a - prior_scale) / sd_scale ** 2
            g_b = -b / sd_offset ** 2
            h_aa, h_ab, h_bb = -1 / sd_scale ** 2, 0.0, -1 / sd_offset ** 2
            for c in usable:
                y = 1.0 if c.label is Label.PASS else 0.0
                w = w_pass if y else w_fail
                p = probability(ScoreSpec(method=ScoreMethod.LOG_ODDS,
                                          scale=min(max(a, MIN_SCALE), MAX_SCALE),
                                          offset=max(-10.0, min(10.0, b))), c.evidence)
                r = w * (y - p)
                g_a += r * c.evidence
                g_b += r
                v = w * p * (1 - p)
                h_aa -= v * c.evidence ** 2
                h_ab -= v * c.evidence
                h_bb -= v
            det = h_aa * h_bb - h_ab ** 2
            if det == 0:
                break
            step_a = (h_bb * g_a - h_ab * g_b) / det
            step_b = (h_aa * g_b - h_ab * g_a) / det
            a, b = a - step_a, b - step_b
            a = min(max(a, MIN_SCALE), MAX_SCALE)
            b = max(-10.0, min(10.0, b))
            if math.hypot(step_a, step_b) < 1e-10:
                break
    return ScoreSpec(method=ScoreMethod.LOG_ODDS, scale=round(a, 6), offset=round(b, 6))


def with_score(rules: RuleSet, score: ScoreSpec) -> RuleSet:
    """`rules` with its score section replaced."""
    return rules.model_copy(update={"score": score})


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


def leave_one_task_out(rules: RuleSet, results: Sequence[DevResult],
                       task_of: dict[str, str]) -> tuple[list[HeldOut], dict[str, ScoreSpec]]:
    """Strict leave-one-task-out: for each task, fit (scale, offset) on the other tasks' cases
    only, then decide that task's cases. The checks (their findings, weights, thresholds) stay
    as recorded. Returns the held-out decisions in case-id order and the fit of each fold."""
    evidence = {r.case_id: Evidence(*evidence_of(rules, r.findings), label=r.label)
                for r in results}
    fits: dict[str, ScoreSpec] = {}
    held: list[HeldOut] = []
    threshold = rules.verdict.pass_threshold
    for task in sorted({task_of[r.case_id] for r in results}):
        train = [evidence[r.case_id] for r in results if task_of[r.case_id] != task]
        fitted = with_score(rules, fit(train))
        fits[task] = fitted.score
        for r in results:
            if task_of[r.case_id] != task:
                continue
            abstaining = recombine(fitted, r.findings, allow_abstain=True)
            held.append(HeldOut(case_id=r.case_id, task=task, label=r.label,
                                forced=abstaining.forced, decision=abstaining.decision,
                                confidence=abstaining.confidence(threshold),
                                score=abstaining.score))
    return sorted(held, key=lambda h: h.case_id), fits


def side(rules: RuleSet, support: float, refute: float, critical: bool) -> tuple[Decision, float]:
    """The forced decision of recorded weights under `rules` (log-odds scoring) and the
    probability of that side, as the rules judge computes them (`Combined.side_probability`):
    a task-critical refutation fails with probability 1."""
    if critical:
        return Decision.FAIL, 1.0
    p = probability(rules.score, support - refute)
    passes = p >= rules.verdict.pass_threshold and support >= rules.verdict.min_support_weight
    return (Decision.PASS, p) if passes else (Decision.FAIL, 1.0 - p)
