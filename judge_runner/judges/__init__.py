"""Judges: everything that turns a case package into a verdict."""

from judge_runner.judges.base import (
    Decision,
    EvidenceRef,
    Inspection,
    Judge,
    Outcome,
    Plan,
    PlanItem,
    Verdict,
)

__all__ = [
    "Decision",
    "EvidenceRef",
    "Inspection",
    "Judge",
    "Outcome",
    "Plan",
    "PlanItem",
    "Verdict",
]
