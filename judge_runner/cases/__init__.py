"""The case package: models and dataset access."""

from judge_runner.cases.dataset import CasePackage, Dataset
from judge_runner.cases.ids import case_id_problem
from judge_runner.cases.models import (
    SCHEMA_VERSION,
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    CaseStats,
    Domain,
    LabelRecord,
    SkillsSource,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    estimate_tokens,
)
from judge_runner.cases.validate import Issue, ValidationLimits, package_problems, validate_dataset
from judge_runner.cases.write import (
    append_labels,
    artifact_record,
    case_stats,
    label_line,
    package_texts,
    trajectory_json,
    write_case,
)
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
    "SkillsSource",
    "Source",
    "Step",
    "StepKind",
    "Termination",
    "TerminationStatus",
    "Trajectory",
    "ValidationLimits",
    "append_labels",
    "artifact_record",
    "case_id_problem",
    "case_stats",
    "estimate_tokens",
    "label_line",
    "package_problems",
    "package_texts",
    "trajectory_json",
    "validate_dataset",
    "write_case",
]
