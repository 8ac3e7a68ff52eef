"""Pydantic models of the case package: everything a judge may read, and the label it may not.

Where each file lives is `judge_runner.core.layout`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Label

SCHEMA_VERSION = "1.0"


class Domain(StrEnum):
    """The eleven SkillTV domains."""

    CYBERSECURITY = "cybersecurity"
    ENERGY = "energy"
    FINANCE = "finance"
    HEALTHCARE = "healthcare"
    MANUFACTURING = "manufacturing"
    MATHEMATICS = "mathematics"
    MEDIA_CONTENT = "media_content"
    NATURAL_SCIENCE = "natural_science"
    OFFICE_WORKFLOWS = "office_workflows"
    ROBOTICS = "robotics"
    SOFTWARE_ENGINEERING = "software_engineering"


class StepKind(StrEnum):
    ASSISTANT_MESSAGE = "assistant_message"
    TOOL_CALL = "tool_call"
    SKILL_USE = "skill_use"
    NOTICE = "notice"  # harness events: background task notifications, run-end markers


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Step(_Frozen):
    """One normalized step. Long text fields are cut head+tail with an explicit marker."""

    index: int = Field(ge=0)
    kind: StepKind
    text: str | None = None  # assistant text, skill body, notice text
    tool: str | None = None
    tool_use_id: str | None = None
    arguments: dict[str, Any] | None = None
    output: str | None = None
    is_error: bool = False
    exit_code: int | None = None
    files_touched: list[str] = Field(default_factory=list)
    skill: str | None = None  # for skill_use steps
    omitted_chars: int = Field(default=0, ge=0)  # total characters cut from this step


class TerminationStatus(StrEnum):
    COMPLETED = "completed"  # a final result event was seen
    ERROR = "error"  # final result event with is_error / error subtype
    NO_RESULT = "no_result"  # the stream ended without a final result (timeout, crash)


class Termination(_Frozen):
    status: TerminationStatus
    result_subtype: str | None = None
    num_turns: int | None = None
    duration_ms: int | None = None
    exception: str | None = None  # harness exception type recorded for the trial, if any


class Trajectory(_Frozen):
    schema_version: str = SCHEMA_VERSION
    case_id: str
    source_format: str  # e.g. "claude-code-stream-json", "atif"
    steps: list[Step]
    final_message: str | None = None
    termination: Termination


class Source(_Frozen):
    trial_path: str  # path of the trial folder as given to the importer (relative when possible)
    trial_name: str
    agent: str | None = None
    model: str | None = None
    transcript_format: str


class ArtifactProvenance(StrEnum):
    COPIED = "copied"  # taken from the trial's artifacts/ directory
    RECONSTRUCTED = "reconstructed"  # replayed from file-writing tool calls
    UNKNOWN = "unknown"  # written by the agent, content could not be recovered


class ArtifactRecord(_Frozen):
    path: str  # path as the agent saw it (e.g. /root/out.csv)
    stored_as: str | None = None  # relative to artifacts/, None when unknown
    size: int | None = None
    sha256: str | None = None
    provenance: ArtifactProvenance
    steps: list[int] = Field(default_factory=list)  # trajectory steps that produced it
    note: str | None = None


class SkillsSource(StrEnum):
    """Where the list of skills a run had comes from (see docs/case-format.md)."""

    TRANSCRIPT = "transcript"  # the harness logged it (Claude Code init event, terminus prompt)
    WITH_SKILLS_JOB = "with_skills_job"  # the job is a with-skills run: the task's skills
    WITHOUT_SKILLS_JOB = "without_skills_job"  # the job is a without-skills run: none
    OPTION = "option"  # the importer was told (`--agent-skills task|none`)
    USED = "used"  # nothing said: the skills the agent used


class CaseStats(_Frozen):
    n_steps: int
    n_tool_calls: int
    n_error_steps: int
    n_skill_uses: int
    raw_chars: int
    normalized_chars: int
    raw_tokens_est: int
    normalized_tokens_est: int


class CaseMeta(_Frozen):
    schema_version: str = SCHEMA_VERSION
    id: str
    task: str
    domain: Domain | None
    category: str | None = None  # the task's own category before domain mapping
    source: Source
    with_skills: bool
    skills: list[str]
    artifacts: list[ArtifactRecord]
    stats: CaseStats
    skills_source: SkillsSource | None = None  # where `skills` comes from; None: not recorded
    notes: list[str] = Field(default_factory=list)  # what the transcript format cannot show


class LabelRecord(_Frozen):
    case_id: str
    label: Label
    reward: float = Field(allow_inf_nan=False)  # a finite number: labels.jsonl is strict JSON


def estimate_tokens(text: str) -> int:
    """Cheap, deterministic token estimate (≈4 characters per token) used for limits and stats."""
    return (len(text) + 3) // 4
