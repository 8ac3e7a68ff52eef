"""The agent judge's tools: JSON schemas sent to the model and pydantic models of their input.

Two inspection tools act on the case (`bash`, `read_file`); three protocol tools build the
products (`write_plan`, `record_inspection`, `submit_verdict`). Tool definitions are constant for
a run (they are part of the cacheable prompt prefix), so nothing case-specific may appear here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Outcome

BASH = "bash"
READ_FILE = "read_file"
WRITE_PLAN = "write_plan"
RECORD_INSPECTION = "record_inspection"
SUBMIT_VERDICT = "submit_verdict"

DEFAULT_PAGE_CHARS = 20_000
MAX_PAGE_CHARS = 60_000


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BashInput(_Input):
    command: str = Field(min_length=1)
    timeout_s: float = Field(default=60, gt=0, le=300)


class ReadFileInput(_Input):
    path: str = Field(min_length=1)
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=DEFAULT_PAGE_CHARS, gt=0, le=MAX_PAGE_CHARS)


class PlanItemInput(_Input):
    id: str = Field(min_length=1, max_length=20)
    what: str = Field(min_length=1)
    where: str = Field(min_length=1)
    support: str = Field(min_length=1)
    refute: str = Field(min_length=1)
    critical: bool = False


class WritePlanInput(_Input):
    items: list[PlanItemInput] = Field(min_length=1)


class EvidenceInput(_Input):
    tool_call_id: str = Field(min_length=1)
    quote: str = Field(min_length=1)


class RecordInspectionInput(_Input):
    plan_item: str = Field(min_length=1)
    check: str = Field(min_length=1)
    finding: str = Field(min_length=1)
    outcome: Outcome
    critical: bool = False
    evidence: list[EvidenceInput] = Field(min_length=1)


class SubmitVerdictInput(_Input):
    decision: Literal["pass", "fail", "abstain"]
    rationale: str = Field(min_length=1)
    citations: list[str] = Field(default_factory=list)
    # How likely the decision is right, as the judge states it (0.5: a guess, 1: certain).
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema without pydantic's titles (shorter, and stable across versions)."""
    schema = model.model_json_schema()
    _drop_titles(schema)
    return schema


def _drop_titles(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        for value in node.values():
            _drop_titles(value)
    elif isinstance(node, list):
        for value in node:
            _drop_titles(value)


def tool_definitions(allow_abstain: bool) -> list[dict[str, Any]]:
    """The five tools, in a fixed order. `abstain` is offered only when the run allows it."""
    verdict_schema = _schema(SubmitVerdictInput)
    if not allow_abstain:
        verdict_schema["properties"]["decision"]["enum"] = ["pass", "fail"]
    return [
        {
            "name": BASH,
            "description": (
                "Run a shell command in the case sandbox (read-only /case, writable /scratch, "
                "no network). Returns exit code, stdout and stderr. Long output is cut with a "
                "marker; narrow the command (head, jq, grep) to see what was cut."
            ),
            "input_schema": _schema(BashInput),
        },
        {
            "name": READ_FILE,
            "description": (
                "Read a text file in pages of characters. Each page states the character range "
                "returned, the file's total length and the offset of the next page. Use it to "
                "page through /case/trajectory.json; nothing is skipped silently."
            ),
            "input_schema": _schema(ReadFileInput),
        },
        {
            "name": WRITE_PLAN,
            "description": (
                "Write (or replace) the inspection plan. Required before any record_inspection. "
                "Each item: id, what to check, where the evidence is, what supports, what "
                "refutes, and whether it is task-critical."
            ),
            "input_schema": _schema(WritePlanInput),
        },
        {
            "name": RECORD_INSPECTION,
            "description": (
                "Record a check you actually ran, tied to a plan item. Evidence names the ids "
                "of your earlier bash/read_file calls and quotes their output exactly; quotes "
                "are checked against the real output. Returns the inspection id (I1, I2, ...)."
            ),
            "input_schema": _schema(RecordInspectionInput),
        },
        {
            "name": SUBMIT_VERDICT,
            "description": (
                "Submit the final decision with a rationale and the ids of the inspections it "
                "rests on. Needs at least one recorded inspection; every cited id must exist."
            ),
            "input_schema": verdict_schema,
        },
    ]
