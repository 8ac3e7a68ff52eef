"""Checklist partial credit: frozen per-task checklists (synthesis, validation gates), the
checklist judge that decides each item from the execution log, and the outcome step with the
partial-credit scores, computed as metrics of a labeled run; the analyses built on them."""

from judge_runner.checklist.analyze import AucResult
from judge_runner.checklist.metrics import (
    ChecklistMetrics,
    case_score,
    read_details,
    run_checklist_metrics,
)
from judge_runner.checklist.outcome import ENDPOINT_ID, CaseScore, ChecklistDetails

__all__ = [
    "ENDPOINT_ID",
    "AucResult",
    "CaseScore",
    "ChecklistDetails",
    "ChecklistMetrics",
    "case_score",
    "read_details",
    "run_checklist_metrics",
]
