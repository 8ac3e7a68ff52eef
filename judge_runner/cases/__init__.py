"""The case package: models and dataset access."""

from judge_runner.cases.dataset import CasePackage, Dataset
from judge_runner.cases.models import (
    SCHEMA_VERSION,
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    CaseStats,
    Domain,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    estimate_tokens,
)
from judge_runner.cases.validate import Issue, ValidationLimits, validate_dataset
from judge_runner.cases.write import append_labels, write_case
from judge_runner.core import Label

__all__ = [
    "SCHEMA_VERSION",
    "ArtifactProvenance",
    "ArtifactRecord",
    "CaseMeta",
    "CasePackage",
    "CaseStats",
    "Dataset",
    "Domain",
    "Issue",
    "Label",
    "LabelRecord",
    "Source",
    "Step",
    "StepKind",
    "Termination",
    "TerminationStatus",
    "Trajectory",
    "ValidationLimits",
    "append_labels",
    "estimate_tokens",
    "validate_dataset",
    "write_case",
]
