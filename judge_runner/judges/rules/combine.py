"""How check findings become a verdict (the documented formula of the rules judge).

Let S be the summed weight of enabled, applicable checks that *support* success and R the summed
weight of those that *refute* it (inconclusive findings count in neither). Then

    score = S / (S + R)                 (0.5 when S + R = 0: no evidence either way)

and the decision is, in this order:

1. any task-critical check refutes              → fail (score reported as 0.0)
2. with abstention allowed, |score − t| < margin → abstain
3. score ≥ t and S ≥ min_support_weight          → pass
4. otherwise                                     → fail (not enough positive evidence)

where t = ``pass_threshold``. With ``[score] method = "log_odds"`` the score is instead a
probability,

    score = sigmoid(scale · (S − R) + offset)

each weight being the log-odds its finding adds (+w when it supports, −w when it refutes);
`calibrate.py` fits the weights, ``scale`` and ``offset`` together from labelled cases. The same
four steps apply, with t = 0.5 meaning "more likely passed than not". `forced` is the decision the
same evidence gives without abstention (what step 2 would have decided), kept for risk–coverage
figures. The verdict cites the inspections that decided it: the critical
refutations in case 1, the supporting ones for a pass, the refuting ones (or, failing that, every
conclusive one) for a score-based fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge_runner.core import Decision, Inspection, Outcome
from judge_runner.judges.rules.spec import RuleSet, ScoreMethod, ScoreSpec


@dataclass(frozen=True)
class Combined:
    decision: Decision
    score: float
    support_weight: float
    refute_weight: float
    citations: list[str]
    rationale: str
    forced: Decision  # the decision without abstention
    probability: float | None = None  # log_odds scoring: the calibrated pass probability
    critical: bool = False  # decided by a task-critical refutation

    def side_probability(self) -> float:
        """The calibrated probability of the side the evidence points to (`forced`): p for a
        pass, 1 − p for a fail, 1 for a task-critical refutation; needs log-odds scoring."""
        if self.critical:
            return 1.0
        p = self.probability if self.probability is not None else 0.5
        return p if self.forced is Decision.PASS else 1.0 - p

    def confidence(self, threshold: float) -> float:
        """1 for a task-critical refutation, else how far the score is from the threshold."""
        return 1.0 if self.critical else confidence(self.score, threshold)


def probability(score: ScoreSpec, evidence: float) -> float:
    """sigmoid(scale · evidence + offset), computed without overflow."""
    z = score.scale * evidence + score.offset
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def confidence(decision_score: float, threshold: float) -> float:
    """How far a score is from the threshold, scaled to [0, 1] (1: as sure as the scale allows)."""
    room = max(threshold, 1.0 - threshold) or 1.0
    return min(1.0, abs(decision_score - threshold) / room)


def combine(rules: RuleSet, log: list[Inspection], weights: dict[str, float],
            allow_abstain: bool) -> Combined:
    """Apply the formula to an inspection log; `weights` maps inspection id → check weight."""
    spec = rules.verdict
    supports = [i for i in log if i.outcome is Outcome.SUPPORTS]
    refutes = [i for i in log if i.outcome is Outcome.REFUTES]
    s = sum(weights[i.id] for i in supports)
    r = sum(weights[i.id] for i in refutes)
    log_odds = rules.score.method is ScoreMethod.LOG_ODDS
    p = probability(rules.score, s - r) if log_odds else None
    if p is not None:
        score = p
        figures = (f"S={s:g}, R={r:g}, p=sigmoid({rules.score.scale:g}·(S−R)"
                   f"{rules.score.offset:+g})={p:.3f}, threshold={spec.pass_threshold:g}")
    else:
        score = s / (s + r) if s + r > 0 else 0.5
        figures = f"S={s:g}, R={r:g}, score={score:.3f}, threshold={spec.pass_threshold:g}"
    critical = [i for i in refutes if i.critical]
    if critical:
        names = ", ".join(f"{i.id} ({i.plan_item})" for i in critical)
        return Combined(Decision.FAIL, 0.0, s, r, [i.id for i in critical],
                        f"task-critical refutation: {names}; {critical[0].finding}",
                        forced=Decision.FAIL, probability=p, critical=True)
    passes = score >= spec.pass_threshold and s >= spec.min_support_weight
    forced = Decision.PASS if passes else Decision.FAIL
    if allow_abstain and abs(score - spec.pass_threshold) < spec.abstain_margin:
        cited = [i.id for i in supports + refutes] or [i.id for i in log]
        return Combined(Decision.ABSTAIN, score, s, r, sorted(cited, key=_order),
                        f"score within {spec.abstain_margin:g} of the threshold ({figures})",
                        forced=forced, probability=p)
    if passes:
        return Combined(Decision.PASS, score, s, r, [i.id for i in supports],
                        f"no task-critical refutation and enough support ({figures})",
                        forced=forced, probability=p)
    why = ("support share below the threshold" if score < spec.pass_threshold
           else f"supporting weight below {spec.min_support_weight:g}")
    cited = [i.id for i in refutes] or [i.id for i in supports] or [i.id for i in log]
    return Combined(Decision.FAIL, score, s, r, cited, f"{why} ({figures})", forced=forced,
                    probability=p)


def _order(inspection_id: str) -> int:
    return int(inspection_id.lstrip("I") or 0)
