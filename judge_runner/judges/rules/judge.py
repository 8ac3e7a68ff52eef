"""The rules judge: deterministic, offline, zero-cost verdicts from a JudgeSkill's checks.toml.

For each case it runs every enabled check (see `checks.py`), puts the ones that apply into the
plan (P1, P2, ...), records each finding as an inspection (I1, I2, ...) with the steps or artifact
paths it rests on, and combines them with the formula in `combine.py`. A case that cannot be read
(missing or invalid case.json / trajectory.json) yields an ``error`` verdict naming the problem,
never a pass or a fail.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Inspection, Plan, PlanItem, Verdict
from judge_runner.judges.products import write_products
from judge_runner.judges.rules.address_checks import GUARD, judged_specs
from judge_runner.judges.rules.checks import CHECKS, Finding, known_checks
from judge_runner.judges.rules.combine import combine
from judge_runner.judges.rules.evidence import CaseView, quote_found
from judge_runner.judges.rules.spec import (
    CHECKS_FILE,
    CheckSpec,
    RulesError,
    RuleSet,
    ScoreMethod,
    load_rules,
)

NAME = "rules"


def default_skill_dir() -> Path:
    """`judgeskills/v2` of the source tree this package was loaded from."""
    return Path(__file__).resolve().parents[3] / "judgeskills" / "v2"


class RulesJudge:
    """Judge cases by the checks of one JudgeSkill. Stateless per call, so thread-safe."""

    name = NAME

    def __init__(self, skill_dir: Path, *, allow_abstain: bool = False) -> None:
        """Load `<skill_dir>/checks.toml`; raises `RulesError` if it is missing or invalid."""
        self.skill_dir = skill_dir
        self.rules: RuleSet = load_rules(skill_dir, known_checks())
        self.allow_abstain = allow_abstain
        self.rules_sha256 = hashlib.sha256((skill_dir / CHECKS_FILE).read_bytes()).hexdigest()

    def refitted(self, scale: float, offset: float, weights: Mapping[str, float] | None = None,
                 support_weights: Mapping[str, float] | None = None) -> RulesJudge:
        """The same checks with the log-odds combination replaced as `calibrate` fitted it on
        the user's dev cases: (scale, offset), and the `weight` / `support_weight` of the
        checks named in `weights` / `support_weights` (check id → value; the others keep the
        skill's). Raises RulesError for a skill whose score is not log-odds (there is nothing
        to refit) or a weight for a check the skill does not have."""
        if self.rules.score.method is not ScoreMethod.LOG_ODDS:
            raise RulesError(f"{self.skill_dir}: the score is not log_odds; nothing to refit")
        try:
            rules = self.rules.reweighted(weights or {}, support_weights or {})
        except RulesError as exc:
            raise RulesError(f"{self.skill_dir}: {exc}") from None
        twin = copy.copy(self)
        twin.rules = rules.model_copy(update={"score": rules.score.model_copy(
            update={"scale": scale, "offset": offset})})
        return twin

    def config(self) -> dict[str, Any]:
        """What decides the verdicts: the rules' content, not where they were read from (the
        same skill reached by another path is the same configuration)."""
        return {
            "judge": NAME,
            "rules_sha256": self.rules_sha256,
            "guards": [spec.id for spec in self._specs() if spec is GUARD],
            "allow_abstain": self.allow_abstain,
            "sandbox": "none",
        }

    def _specs(self) -> list[CheckSpec]:
        return judged_specs(self.rules)

    def inspect(self, case: CasePackage) -> tuple[Plan, list[Inspection], dict[str, float]]:
        """Run the enabled checks; return plan, log and inspection id → weight."""
        view = CaseView(case)
        items: list[PlanItem] = []
        log: list[Inspection] = []
        weights: dict[str, float] = {}
        for spec in self._specs():
            definition = CHECKS[spec.id]
            finding: Finding | None = definition.run(view, spec)
            if finding is None:
                continue
            n = len(items) + 1
            items.append(PlanItem(id=f"P{n}", what=f"{spec.id}: {spec.description}",
                                  where=finding.where, support=definition.support,
                                  refute=definition.refute, critical=spec.task_critical))
            evidence = [ref.model_copy(update={"verified": quote_found(view, ref.kind, ref.ref,
                                                                       ref.quote)})
                        if ref.quote else ref for ref in finding.evidence]
            log.append(Inspection(id=f"I{n}", plan_item=f"P{n}", check=spec.id,
                                  finding=finding.text, outcome=finding.outcome,
                                  critical=spec.task_critical, evidence=evidence))
            weights[f"I{n}"] = spec.weight_for(finding.outcome.value)
        return Plan(items=items), log, weights

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.perf_counter()
        case_id = case.root.name
        try:
            case_id = case.id
            plan, log, weights = self.inspect(case)
        except (OSError, ValueError, ValidationError, RulesError) as exc:
            verdict = Verdict(case_id=case_id, judge=NAME, decision=Decision.ERROR,
                              error=f"cannot judge {case.root}: {exc.__class__.__name__}: {exc}",
                              duration_s=time.perf_counter() - started)
            write_products(out_dir, None, [], verdict)
            return verdict
        result = combine(self.rules, log, weights, self.allow_abstain)
        quotes = [ref for inspection in log for ref in inspection.evidence if ref.quote]
        sure = result.confidence(self.rules.verdict.pass_threshold)
        stated = result.side_probability() if result.probability is not None else sure
        verdict = Verdict(
            case_id=case_id, judge=NAME, decision=result.decision, rationale=result.rationale,
            citations=result.citations, score=round(result.score, 6),
            confidence=round(stated, 6),
            duration_s=time.perf_counter() - started,
            details={"support_weight": result.support_weight,
                     "refute_weight": result.refute_weight,
                     "rules_sha256": self.rules_sha256,
                     "forced": result.forced.value,
                     "critical": result.critical,
                     "confidence": round(sure, 6),
                     "probability": (round(result.probability, 6)
                                     if result.probability is not None else None),
                     "evidence": {"quotes": len(quotes),
                                  "verified": sum(1 for ref in quotes if ref.verified)}},
        )
        write_products(out_dir, plan, log, verdict)
        return verdict
