"""What every judge produces: an inspection plan, an inspection log and a verdict.

A judge writes them into a per-case output folder:

    plan.md              the plan, human-readable
    inspection_log.jsonl one Inspection per line
    verdict.json         Verdict
    transcript.jsonl     model judges only: every request/response of the session

Failure is a verdict too: a judge that cannot decide (budget exhausted, unparseable output,
crashed sandbox, API failure) returns ``Decision.ERROR`` with a reason. Errors are never counted
as pass or fail; abstentions are reported as coverage.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core.decisions import Decision
from judge_runner.core.usage import Usage


class PlanItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # e.g. "P1"
    what: str  # what to check
    where: str  # where the evidence is (step range, artifact path, command)
    support: str  # what counts as support
    refute: str  # what counts as refutation
    critical: bool = False  # a supported refutation of a critical item fails the case


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[PlanItem]

    def to_markdown(self, title: str = "Inspection plan") -> str:
        lines = [f"# {title}", ""]
        for item in self.items:
            flag = " (task-critical)" if item.critical else ""
            lines += [
                f"## {item.id}: {item.what}{flag}",
                f"- where: {item.where}",
                f"- support: {item.support}",
                f"- refute: {item.refute}",
                "",
            ]
        return "\n".join(lines)


class Outcome(StrEnum):
    SUPPORTS = "supports"  # evidence that the task succeeded on this item
    REFUTES = "refutes"  # evidence of a failure on this item
    INCONCLUSIVE = "inconclusive"


class RefKind(StrEnum):
    """What an `EvidenceRef.ref` names."""

    STEP = "step"  # a trajectory step index
    ARTIFACT = "artifact"  # a path under artifacts/
    TOOL_CALL = "tool_call"  # the judge's own tool call id
    INSTRUCTION = "instruction"  # the task instruction file
    SKILL = "skill"  # a task-time skill name
    REPORT = "report"  # the run's final report (a claim of the run; ref is ignored)


class EvidenceRef(BaseModel):
    """Where an inspection's evidence lives."""

    model_config = ConfigDict(extra="forbid")

    kind: RefKind
    ref: str
    quote: str | None = None
    verified: bool | None = None  # machine check: quote found in the referenced source


class Inspection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # e.g. "I1"
    plan_item: str
    check: str  # what was actually run or read
    finding: str
    outcome: Outcome
    critical: bool = False
    evidence: list[EvidenceRef] = Field(default_factory=list)


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    judge: str  # judge name, e.g. "rules", "agent", "direct"
    decision: Decision
    rationale: str = ""
    citations: list[str] = Field(default_factory=list)  # Inspection ids
    score: float | None = None  # judge-specific confidence/score in [0, 1] when it has one
    # How sure the judge is of its decision (its forced decision when it abstained), in [0, 1]:
    # the rules judge's calibrated probability of the side it chose, a vote share, or a stated
    # confidence. What `calibrate` thresholds; None when the judge gives none.
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    unsupported: bool = False  # citations did not resolve after the repair turn
    error: str | None = None  # reason, when decision is ERROR
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0
    details: dict[str, Any] = Field(default_factory=dict)
