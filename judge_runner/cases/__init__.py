"""The case package: models and dataset access."""

from judge_runner.cases.dataset import CasePackage, Dataset
from judge_runner.cases.models import (
    SCHEMA_VERSION,
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    CaseStats,
    Domain,
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    estimate_tokens,
)

__all__ = [
    "SCHEMA_VERSION",
    "ArtifactProvenance",
    "ArtifactRecord",
    "CaseMeta",
    "CasePackage",
    "CaseStats",
    "Dataset",
    "Domain",
    "Label",
    "LabelRecord",
    "Source",
    "Step",
    "StepKind",
    "Termination",
    "TerminationStatus",
    "Trajectory",
    "estimate_tokens",
]
