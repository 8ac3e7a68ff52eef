"""How check findings become a verdict (the documented formula of the rules judge).

Let S be the summed weight of enabled, applicable checks that *support* success and R the summed
weight of those that *refute* it (inconclusive findings count in neither). Then

    score = S / (S + R)                 (0.5 when S + R = 0: no evidence either way)

and the decision is, in this order:

1. any task-critical check refutes              → fail (score reported as 0.0)
2. with abstention allowed, |score − t| < margin → abstain
3. score ≥ t and S ≥ min_support_weight          → pass
4. otherwise                                     → fail (not enough positive evidence)

where t = ``pass_threshold``. The verdict cites the inspections that decided it: the critical
refutations in case 1, the supporting ones for a pass, the refuting ones (or, failing that, every
conclusive one) for a score-based fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_runner.judges.base import Decision, Inspection, Outcome
from judge_runner.judges.rules.spec import RuleSet


@dataclass(frozen=True)
class Combined:
    decision: Decision
    score: float
    support_weight: float
    refute_weight: float
    citations: list[str]
    rationale: str


def combine(rules: RuleSet, log: list[Inspection], weights: dict[str, float],
            allow_abstain: bool) -> Combined:
    """Apply the formula to an inspection log; `weights` maps inspection id → check weight."""
    spec = rules.verdict
    supports = [i for i in log if i.outcome is Outcome.SUPPORTS]
    refutes = [i for i in log if i.outcome is Outcome.REFUTES]
    s = sum(weights[i.id] for i in supports)
    r = sum(weights[i.id] for i in refutes)
    score = s / (s + r) if s + r > 0 else 0.5
    critical = [i for i in refutes if i.critical]
    figures = f"S={s:g}, R={r:g}, score={score:.3f}, threshold={spec.pass_threshold:g}"
    if critical:
        names = ", ".join(f"{i.id} ({i.plan_item})" for i in critical)
        return Combined(Decision.FAIL, 0.0, s, r, [i.id for i in critical],
                        f"task-critical refutation: {names}; {critical[0].finding}")
    if allow_abstain and abs(score - spec.pass_threshold) < spec.abstain_margin:
        cited = [i.id for i in supports + refutes] or [i.id for i in log]
        return Combined(Decision.ABSTAIN, score, s, r, sorted(cited, key=_order),
                        f"score within {spec.abstain_margin:g} of the threshold ({figures})")
    if score >= spec.pass_threshold and s >= spec.min_support_weight:
        return Combined(Decision.PASS, score, s, r, [i.id for i in supports],
                        f"no task-critical refutation and enough support ({figures})")
    why = ("support share below the threshold" if score < spec.pass_threshold
           else f"supporting weight below {spec.min_support_weight:g}")
    cited = [i.id for i in refutes] or [i.id for i in supports] or [i.id for i in log]
    return Combined(Decision.FAIL, score, s, r, cited, f"{why} ({figures})")


def _order(inspection_id: str) -> int:
    return int(inspection_id.lstrip("I") or 0)
