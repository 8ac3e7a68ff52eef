"""Crafted case packages for rules-judge tests, written through `write_case`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge_runner.cases import (
    CasePackage,
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    append_labels,
    write_case,
)
from tests.judges.casekit import register_secrets

INSTRUCTION = "Read `/root/input.csv` and save the total to `/root/out.json`.\n"


def msg(text: str) -> dict[str, Any]:
    return {"kind": StepKind.ASSISTANT_MESSAGE, "text": text}


def bash(command: str, output: str = "", exit_code: int = 0, **extra: Any) -> dict[str, Any]:
    return {"kind": StepKind.TOOL_CALL, "tool": "Bash", "arguments": {"command": command},
            "output": output, "exit_code": exit_code, "is_error": exit_code != 0, **extra}


def write(path: str, content: str) -> dict[str, Any]:
    return {"kind": StepKind.TOOL_CALL, "tool": "Write",
            "arguments": {"file_path": path, "content": content},
            "output": f"File created successfully at: {path}", "files_touched": [path]}


def read(path: str, output: str, is_error: bool = False) -> dict[str, Any]:
    return {"kind": StepKind.TOOL_CALL, "tool": "Read", "arguments": {"file_path": path},
            "output": output, "is_error": is_error}


def skill(name: str, body: str) -> dict[str, Any]:
    return {"kind": StepKind.SKILL_USE, "tool": "Skill", "skill": name, "text": body}


def notice(text: str) -> dict[str, Any]:
    return {"kind": StepKind.NOTICE, "text": text}


GOOD_RUN: list[dict[str, Any]] = [
    msg("I will look at the input first."),
    skill("tables", "Use `scripts/total.py` to add a column."),
    bash("python3 /root/skills/tables/scripts/total.py /root/input.csv", "6\n"),
    write("/root/out.json", '{"total": 6}'),
    read("/root/out.json", '{"total": 6}'),
    msg("The total (6) has been saved to `/root/out.json`."),
]


def build_case(
    root: Path,
    steps: list[dict[str, Any]] | None = None,
    *,
    case_id: str = "case-1",
    instruction: str = INSTRUCTION,
    status: TerminationStatus = TerminationStatus.COMPLETED,
    subtype: str | None = "success",
    final_message: str | None = None,
    skills: tuple[str, ...] = ("tables",),
    artifacts: dict[str, bytes] | None = None,
) -> CasePackage:
    """Write `<root>/cases/<case_id>/` and return it; `artifacts` maps agent paths to bytes.
    A tool call with output and no `tool_use_id` gets `call-<index>`, as a real transcript has."""
    raw = GOOD_RUN if steps is None else steps
    built = [Step(index=i, **_with_call_id(i, fields)) for i, fields in enumerate(raw)]
    if final_message is None:
        texts = [s.text for s in built if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
        final_message = texts[-1] if texts and status is not TerminationStatus.NO_RESULT else None
    trajectory = Trajectory(
        case_id=case_id, source_format="test", steps=built, final_message=final_message,
        termination=Termination(status=status,
                                result_subtype=subtype if status is not TerminationStatus.NO_RESULT
                                else None, num_turns=len(built)),
    )
    return write_case(
        root, task="crafted", instruction=instruction, trajectory=trajectory,
        source=Source(trial_path=f"trials/{case_id}", trial_name=case_id,
                      transcript_format="test"),
        skills={name: {"SKILL.md": f"# {name}\n"} for name in skills}, artifacts=artifacts)


def _with_call_id(index: int, fields: dict[str, Any]) -> dict[str, Any]:
    if fields["kind"] is StepKind.TOOL_CALL and fields.get("output") is not None \
            and not fields.get("tool_use_id"):
        return {**fields, "tool_use_id": f"call-{index}"}
    return fields


# the rules judge decides these two; a model judge the other two
SURE = {"sure-pass": Label.PASS, "sure-fail": Label.FAIL}
UNSURE = {"unsure-pass": Label.PASS, "unsure-fail": Label.FAIL}
VERIFIED_RUN = [
    msg("I will look at the input first."),
    skill("tables", "Use `scripts/total.py` to add a column."),
    bash("python3 /root/skills/tables/scripts/total.py /root/input.csv > /root/out.json", ""),
    bash("cat /root/out.json", '{"total": 6}'),
    bash("pytest -q tests/", "3 passed in 0.1s"),
    msg("The total (6) has been saved to `/root/out.json`."),
]


def mixed_certainty_dataset(root: Path) -> Path:
    """Four labelled cases: two the rules judge (v2, abstaining) decides, two it abstains on."""
    build_case(root, VERIFIED_RUN, case_id="sure-pass")
    build_case(root, GOOD_RUN, case_id="sure-fail", status=TerminationStatus.NO_RESULT)
    for case_id in UNSURE:
        build_case(root, GOOD_RUN, case_id=case_id)  # typed output: evidence either way
    append_labels(root, [LabelRecord(case_id=c, label=label, reward=float(label is Label.PASS))
                         for c, label in sorted({**SURE, **UNSURE}.items())])
    register_secrets(root)
    return root
