"""The shared vocabulary of every stage: decisions and labels, verdict types, usage, metrics and
the gate score, and the case layout. It imports nothing from the stage packages."""

from judge_runner.core.decisions import Decision, Label, is_correct
from judge_runner.core.layout import (
    ARTIFACTS_DIR,
    CASE_FILE,
    CASES_DIR,
    EVIDENCE_DIR,
    IMPORT_REPORT_FILE,
    INCOMPLETE_FILE,
    INSTRUCTION_FILE,
    LABELS_FILE,
    SAME_AS_FINAL,
    SKILLS_DIR,
    TRAJECTORY_FILE,
)
from judge_runner.core.metrics import (
    DomainMetrics,
    Figures,
    Interval,
    Metrics,
    compute_metrics,
    gate_score,
    wilson_interval,
)
from judge_runner.core.usage import Usage
from judge_runner.core.verdicts import (
    EvidenceRef,
    Inspection,
    Outcome,
    Plan,
    PlanItem,
    RefKind,
    Verdict,
)

__all__ = [
    "ARTIFACTS_DIR",
    "CASES_DIR",
    "CASE_FILE",
    "EVIDENCE_DIR",
    "IMPORT_REPORT_FILE",
    "INCOMPLETE_FILE",
    "INSTRUCTION_FILE",
    "LABELS_FILE",
    "SAME_AS_FINAL",
    "SKILLS_DIR",
    "TRAJECTORY_FILE",
    "Decision",
    "DomainMetrics",
    "EvidenceRef",
    "Figures",
    "Inspection",
    "Interval",
    "Label",
    "Metrics",
    "Outcome",
    "Plan",
    "PlanItem",
    "RefKind",
    "Usage",
    "Verdict",
    "compute_metrics",
    "gate_score",
    "is_correct",
    "wilson_interval",
]
