"""Crafted case packages for rules-judge tests, written through the case package models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge_runner.cases import (
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    CasePackage,
    CaseStats,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
)

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
    return {"kind": StepKind.SKILL_USE, "skill": name, "text": body}


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
    """Write `<root>/cases/<case_id>/` and return it; `artifacts` maps agent paths to bytes."""
    raw = GOOD_RUN if steps is None else steps
    built = [Step(index=i, **fields) for i, fields in enumerate(raw)]
    if final_message is None:
        texts = [s.text for s in built if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
        final_message = texts[-1] if texts and status is not TerminationStatus.NO_RESULT else None
    trajectory = Trajectory(
        case_id=case_id, source_format="test", steps=built, final_message=final_message,
        termination=Termination(status=status,
                                result_subtype=subtype if status is not TerminationStatus.NO_RESULT
                                else None, num_turns=len(built)),
    )
    case_dir = root / "cases" / case_id
    records = []
    for agent_path, data in sorted((artifacts or {}).items()):
        stored = agent_path.lstrip("/")
        target = case_dir / "artifacts" / stored
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        writers = [s.index for s in built if agent_path in s.files_touched]
        records.append(ArtifactRecord(path=agent_path, stored_as=stored, size=len(data),
                                      provenance=ArtifactProvenance.COPIED, steps=writers))
    for name in skills:
        (case_dir / "skills" / name).mkdir(parents=True, exist_ok=True)
        (case_dir / "skills" / name / "SKILL.md").write_text(f"# {name}\n", encoding="utf-8")
    n_tools = sum(1 for s in built if s.kind is StepKind.TOOL_CALL)
    meta = CaseMeta(
        id=case_id, task="crafted", domain=None,
        source=Source(trial_path=f"trials/{case_id}", trial_name=case_id,
                      transcript_format="test"),
        with_skills=bool(skills), skills=list(skills), artifacts=records,
        stats=CaseStats(n_steps=len(built), n_tool_calls=n_tools,
                        n_error_steps=sum(1 for s in built if s.is_error),
                        n_skill_uses=sum(1 for s in built if s.kind is StepKind.SKILL_USE),
                        raw_chars=0, normalized_chars=0, raw_tokens_est=0,
                        normalized_tokens_est=0),
    )
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "instruction.md").write_text(instruction, encoding="utf-8")
    (case_dir / "trajectory.json").write_text(trajectory.model_dump_json(indent=1),
                                              encoding="utf-8")
    (case_dir / "case.json").write_text(meta.model_dump_json(indent=1), encoding="utf-8")
    return CasePackage(case_dir)
