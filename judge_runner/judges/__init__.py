"""Judges: everything that turns a case package into a verdict."""

from judge_runner.core import Decision, EvidenceRef, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.base import Judge

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
