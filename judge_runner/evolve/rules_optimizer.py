"""The rules judge's optimizer behind the evolution loop's Optimizer contract.

The rules optimizer re-scores recorded check findings under edited weights, criticality,
thresholds and switches; it needs no model. A strategy chooses which dev cases it learns from:
hardening keeps the false passes and drops the false fails, relaxation the reverse, calibration
uses all. Correctly judged cases are always kept, so an edit that breaks them is penalised.
"""

from __future__ import annotations

import shutil

from judge_runner.core import Label, Usage
from judge_runner.evolve.bundles import JudgedCase
from judge_runner.evolve.optimizer import Proposal, ProposalError, ProposalRequest
from judge_runner.evolve.state import Strategy
from judge_runner.judges import DevResult, RulesError, propose, read_log


def _keep(case: JudgedCase, strategy: Strategy) -> bool:
    if not case.verdict.decision.is_decided:
        return False
    if not case.misjudged or strategy is Strategy.CALIBRATE:
        return True
    false_pass = case.label is Label.FAIL
    return false_pass if strategy is Strategy.HARDEN else not false_pass


class RulesOptimizer:
    name = "rules"

    def __init__(self, max_edits: int = 4) -> None:
        self.max_edits = max_edits

    def spent(self) -> Usage:
        return Usage()  # no model calls

    def propose(self, request: ProposalRequest) -> Proposal:
        results = [
            DevResult(
                case_id=j.case_id,
                label=j.label,
                findings={i.check: i.outcome for i in read_log(j.products_dir)},
            )
            for j in request.judged
            if _keep(j, request.strategy)
        ]
        if request.out_dir.exists():
            shutil.rmtree(request.out_dir)  # left by an interrupted attempt
        request.out_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            skill_dir = propose(
                request.parent_dir,
                results,
                request.out_dir,
                seed=request.seed,
                max_edits=self.max_edits,
            )
        except RulesError as exc:
            raise ProposalError(f"rules optimizer: {exc}") from exc
        header = (skill_dir / "checks.toml").read_text(encoding="utf-8").splitlines()[:5]
        rationale = " ".join(line.lstrip("# ") for line in header if line.startswith("#"))
        return Proposal(skill_dir=skill_dir, rationale=rationale, usage=Usage())
