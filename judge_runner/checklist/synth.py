"""The checklist synthesizer: human rules + one task's instruction and verifier → a checklist.

The model answers through the `submit_checklist` tool (structured input, validated by pydantic);
its text is never parsed. The result then goes through the validation gates; when a gate fails,
the failures are sent back as the tool result and the model resubmits, up to `max_rounds`
submissions in all. What comes out is either a frozen checklist that passed every gate or a
SynthError carrying the last failures.

A request holds only the rules, the instruction and the verifier files (see `tasks.py`, which
reads nothing else from the task folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.checklist.conversation import follow_up, tool_call
from judge_runner.checklist.models import (
    Checklist,
    ChecklistItem,
    ChecklistProvenance,
    ItemKind,
    MechanicalCheck,
    Route,
)
from judge_runner.checklist.tasks import MAX_VERIFIER_FILE_CHARS, TaskSource
from judge_runner.checklist.validate import GateFailure, validate
from judge_runner.core import Usage
from judge_runner.models import ModelClient, ModelError, ModelRequest
from judge_runner.text import CUT, cut, sha256_text
from judge_runner.validation import problems

TOOL_NAME = "submit_checklist"
DEFAULT_RULES = Path(__file__).with_name("rules.md")

_ROLE = (
    "You write evaluation checklists for agent tasks. Follow the rules below exactly. You are "
    "given one task's instruction and the code of its official verifier; you never see any run "
    "of the task. Submit the checklist by calling the submit_checklist tool once."
)


class SynthItem(BaseModel):
    """One item as the model submits it; ids and orders are assigned from the list order."""

    model_config = ConfigDict(extra="forbid")

    requirement: str
    quote: str | None = None
    verifier_ref: str | None = None
    route: Route
    weight: float = Field(default=1.0, gt=0.0, le=3.0)
    kind: ItemKind = ItemKind.REQUIREMENT
    check: MechanicalCheck | None = None


class SynthPayload(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[SynthItem]


class SynthError(RuntimeError):
    """No valid checklist after all rounds (or the model call failed); `failures` are the gate
    failures of the last submission (empty for call or format errors)."""

    def __init__(self, message: str, failures: list[GateFailure], usage: Usage) -> None:
        super().__init__(message)
        self.failures = failures
        self.usage = usage


@dataclass(frozen=True)
class SynthResult:
    checklist: Checklist
    rounds: int
    usage: Usage


def tool_schema() -> dict[str, Any]:
    return {
        "name": TOOL_NAME,
        "description": "Submit the complete checklist for the task, items in order.",
        "input_schema": SynthPayload.model_json_schema(),
    }


def build_request(task: TaskSource, rules: str, model: str) -> ModelRequest:
    """The first request for `task`. Rules sit in the cached system prefix (same for all tasks)."""
    return ModelRequest(
        model=model,
        system=[{"type": "text", "text": f"{_ROLE}\n\n{rules}",
                 "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": [{"type": "text", "text": task_prompt(task)}]}],
        tools=[tool_schema()],
        tool_choice={"type": "tool", "name": TOOL_NAME},
        max_tokens=8192,
        temperature=0.0,
    )


def task_prompt(task: TaskSource) -> str:
    parts = [f"Task: {task.name}", "", "<instruction>", task.instruction.rstrip(), "</instruction>"]
    for name, text in sorted(task.verifier_files.items()):
        shown, _ = cut(text, MAX_VERIFIER_FILE_CHARS, head=MAX_VERIFIER_FILE_CHARS, marker=CUT)
        parts += ["", f'<verifier file="tests/{name}">', shown.rstrip(), "</verifier>"]
    listed = "\n".join(f"- {n}" for n in task.test_names) or "- (none found)"
    parts += ["", "Verifier test ids (the only valid values of verifier_ref):", listed]
    return "\n".join(parts)


def to_checklist(
    payload: SynthPayload, task: TaskSource, rules: str, model: str | None
) -> Checklist:
    items = [
        ChecklistItem(id=f"C{n:02d}", order=n, requirement=i.requirement.strip(),
                      quote=i.quote, verifier_ref=i.verifier_ref, route=i.route,
                      weight=i.weight, kind=i.kind, check=i.check)
        for n, i in enumerate(payload.items, start=1)
    ]
    provenance = ChecklistProvenance(instruction_sha256=task.instruction_sha256,
                                     verifier_files=task.verifier_hashes(),
                                     rules_sha256=sha256_text(rules), model=model)
    return Checklist(task=task.name, items=items, provenance=provenance).freeze()


def synthesize(
    task: TaskSource,
    rules: str,
    client: ModelClient,
    model: str,
    *,
    max_rounds: int = 3,
) -> SynthResult:
    """Synthesize and validate a checklist for `task`.

    Raises SynthError when the model call fails for good or no submission passes the gates
    within `max_rounds`."""
    request = build_request(task, rules, model)
    usage = Usage()
    failures: list[GateFailure] = []
    for round_no in range(1, max_rounds + 1):
        try:
            response = client.complete(request)
        except ModelError as exc:
            raise SynthError(f"{task.name}: model call failed: {exc}", failures, usage) from exc
        usage = usage + response.usage
        block = tool_call(response.content, TOOL_NAME)
        if block is None:
            feedback = f"No {TOOL_NAME} call was made. Call the tool with the checklist."
            request = follow_up(request, response.content, None, feedback)
            continue
        try:
            payload = SynthPayload.model_validate(block.get("input"))
        except ValidationError as exc:
            failures = []
            feedback = ("The submission does not match the tool schema: "
                        + problems(exc, "input"))
        else:
            checklist = to_checklist(payload, task, rules, model)
            failures = validate(checklist, task)
            if not failures:
                return SynthResult(checklist=checklist, rounds=round_no, usage=usage)
            feedback = ("The checklist failed these validation gates; fix them and submit the "
                        "whole checklist again:\n" + "\n".join(f"- {f}" for f in failures))
        request = follow_up(request, response.content, block, feedback)
    detail = "; ".join(str(f) for f in failures) or "no valid submission"
    raise SynthError(f"{task.name}: no valid checklist after {max_rounds} rounds: {detail}",
                     failures, usage)

