"""A case rendered as one prompt for single-call judges (direct, rubric, multi).

Selection policy when the case does not fit `max_tokens` (estimated at ≈4 characters/token),
applied in this order until it fits, and recorded in the verdict's `details["selection"]`:

1. Always kept whole: the instruction, the artifact listing, the termination record and the
   agent's final message.
2. Each step's long text (output, arguments, message) is cut to a head and tail of
   `step_chars` characters with a marker giving the number of characters cut; `step_chars`
   halves from 4,000 down to 500.
3. Skill bodies are cut to their first 2,000 characters, then to their name and description.
4. Artifact previews are cut to their first 1,000 characters, then to the listing only.
5. Whole steps are left out, middle first: kept are error steps, skill loads, steps that touched
   a produced file, and the first and last steps (the window shrinks until it fits). Every gap is
   marked in place with the range of step indices and the characters left out.
6. If even that does not fit, the smallest digest is used as it is and `over_budget` is set:
   the protected steps are what a verdict rests on, so they are never cut blindly (a server
   that cannot take the prompt then fails the call, which is an error verdict, not a guess).

Nothing is dropped without a marker in the prompt and a record in `Selection`.

Every piece of text from the run (instruction, skill bodies, file previews, each step's
arguments, text and output, the final message) is fenced with the case's boundary
(`CasePackage.fence`), and every name or path from the run on a line of ours is an escaped
quoted literal, so nothing the agent wrote can pass for the digest's own structure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from judge_runner.cases import CasePackage, Step, StepKind, estimate_tokens
from judge_runner.text import CUT, cut
from judge_runner.untrusted import Fence

STEP_CHARS = (4000, 2000, 1000, 500)
SKILL_CHARS = (None, 2000, 0)  # None: whole body; 0: name and description only
ARTIFACT_CHARS = (4000, 1000, 0)
EDGE_STEPS = (20, 10, 5, 2, 1, 0)


class Selection(BaseModel):
    """What the digest left out; empty lists and `fits_whole` mean nothing was left out."""

    fits_whole: bool
    prompt_tokens_est: int
    max_tokens: int
    step_chars: int | None = None
    skill_chars: int | None = None
    artifact_chars: int | None = None
    omitted_steps: list[list[int]] = Field(default_factory=list)  # [first, last] ranges
    omitted_step_chars: int = 0
    over_budget: bool = False  # still too large with everything the policy may cut


@dataclass(frozen=True)
class _Level:
    step_chars: int | None
    skill_chars: int | None
    artifact_chars: int | None
    edge: int | None  # None: keep all steps


def _levels() -> list[_Level]:
    levels = [_Level(None, None, None, None)]
    levels += [_Level(s, None, None, None) for s in STEP_CHARS]
    levels += [_Level(STEP_CHARS[-1], k, None, None) for k in SKILL_CHARS[1:]]
    levels += [_Level(STEP_CHARS[-1], 0, a, None) for a in ARTIFACT_CHARS[1:]]
    levels += [_Level(STEP_CHARS[-1], 0, 0, e) for e in EDGE_STEPS]
    return levels


def render_digest(case: CasePackage, max_tokens: int) -> tuple[str, Selection]:
    """The case as markdown within `max_tokens` (estimate), and what was left out.

    Raises OSError / ValueError when the case package cannot be read.
    """
    levels = _levels()
    for number, level in enumerate(levels):
        text, omitted, omitted_chars = _render(case, level)
        tokens = estimate_tokens(text)
        last = number == len(levels) - 1
        if tokens <= max_tokens or last:
            return text, Selection(
                fits_whole=number == 0 and tokens <= max_tokens,
                prompt_tokens_est=tokens, max_tokens=max_tokens,
                step_chars=level.step_chars, skill_chars=level.skill_chars,
                artifact_chars=level.artifact_chars, omitted_steps=omitted,
                omitted_step_chars=omitted_chars, over_budget=tokens > max_tokens,
            )
    raise AssertionError("unreachable: the last level always returns")


def _render(case: CasePackage, level: _Level) -> tuple[str, list[list[int]], int]:
    meta, trajectory, fence = case.meta, case.trajectory, case.fence
    parts = [f"# Case {fence.inline(meta.id)}", "", fence.declaration(), "",
             f"Task: {fence.inline(meta.task)}", "", "## Instruction", "",
             fence.wrap(case.instruction.strip(), "the task instruction, as the run recorded it"),
             "", "## Skills the agent had", ""]
    parts += _skills(case, level.skill_chars) or ["(none)"]
    parts += ["", "## Files the agent produced", ""]
    parts += _artifacts(case, level.artifact_chars) or ["(none recorded)"]
    parts += ["", f"## Trajectory ({len(trajectory.steps)} steps)", ""]
    steps, omitted, omitted_chars = _steps(case, level)
    parts += steps
    term = trajectory.termination
    parts += ["", "## End of run", "",
              f"termination: {term.status.value}"
              + (f" ({fence.inline(term.result_subtype)})" if term.result_subtype else "")
              + (f", exception {fence.inline(term.exception)}" if term.exception else ""),
              "", "Final message of the agent:", "",
              fence.wrap(trajectory.final_message, "the agent's final message")
              if trajectory.final_message else "(none)"]
    return "\n".join(parts) + "\n", omitted, omitted_chars


def _skills(case: CasePackage, chars: int | None) -> list[str]:
    lines: list[str] = []
    fence = case.fence
    for name in case.meta.skills:
        path = case.skills_dir / name / "SKILL.md"
        body = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        if chars == 0 or not body:
            first = next((ln for ln in body.splitlines() if ln.startswith("description:")), "")
            lines.append(f"- {fence.inline(name)}" + (f" {fence.inline(first)}" if first else ""))
            continue
        lines += [f"### Skill {fence.inline(name)}", "",
                  fence.wrap(_head(body, chars), "the skill's SKILL.md"), ""]
    return lines


def _artifacts(case: CasePackage, chars: int | None) -> list[str]:
    lines: list[str] = []
    fence = case.fence
    for record in case.meta.artifacts:
        where = fence.inline(record.stored_as) if record.stored_as else "content not available"
        lines.append(f"- {fence.inline(record.path)} ({record.provenance.value}, "
                     f"{record.size} bytes): {where}")
        if chars == 0 or record.stored_as is None:
            continue
        path = case.artifact_file(record)
        preview = _preview(path, chars) if path is not None else \
            "(not shown: the stored copy is not a file inside artifacts/)"
        if preview:
            lines += ["", fence.wrap(preview, "content of the file above"), ""]
    return lines


def _preview(path: Path, chars: int | None) -> str:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(binary file, {len(data)} bytes)"
    return _head(text, chars)


def _steps(case: CasePackage, level: _Level) -> tuple[list[str], list[list[int]], int]:
    steps = case.trajectory.steps
    keep = _kept(case, level.edge)
    lines: list[str] = []
    omitted: list[list[int]] = []
    omitted_chars = 0
    gap: list[Step] = []

    def close_gap() -> None:
        nonlocal omitted_chars
        if gap:
            chars = sum(len(_step(s, None, case.fence)) for s in gap)
            omitted.append([gap[0].index, gap[-1].index])
            omitted_chars += chars
            lines.append(f"[steps {gap[0].index}-{gap[-1].index} left out: {len(gap)} steps, "
                         f"{chars} characters]")
            gap.clear()

    for step in steps:
        if keep is None or step.index in keep:
            close_gap()
            lines.append(_step(step, level.step_chars, case.fence))
        else:
            gap.append(step)
    close_gap()
    return lines, omitted, omitted_chars


def _kept(case: CasePackage, edge: int | None) -> set[int] | None:
    if edge is None:
        return None
    steps = case.trajectory.steps
    produced = {a.path for a in case.meta.artifacts}
    keep = {s.index for s in steps[:edge]} | {s.index for s in steps[len(steps) - edge:]}
    keep |= {s.index for s in steps if s.is_error or s.kind == StepKind.SKILL_USE
             or (s.exit_code not in (None, 0)) or produced & set(s.files_touched)}
    return keep


def _step(step: Step, chars: int | None, fence: Fence) -> str:
    head = f"[{step.index}] {step.kind.value}"
    if step.tool:
        head += f" {fence.inline(step.tool)}"
    if step.skill:
        head += f" skill={fence.inline(step.skill)}"
    if step.is_error or step.exit_code not in (None, 0):
        head += f" ERROR (exit {step.exit_code})"
    body: list[str] = [head]
    where = f"of step {step.index}"
    if step.arguments:
        body.append("args: " + fence.wrap(_cut(json.dumps(step.arguments, ensure_ascii=False),
                                               chars), f"arguments {where}"))
    if step.text:
        body.append(fence.wrap(_cut(step.text, chars), f"text {where}"))
    if step.output:
        body.append("output: " + fence.wrap(_cut(step.output, chars), f"output {where}"))
    if step.omitted_chars:
        body.append(f"(the normalizer already cut {step.omitted_chars} characters here)")
    return "\n".join(body)


def _cut(text: str, chars: int | None) -> str:
    return text if chars is None else cut(text, chars, marker=CUT)[0]


def _head(text: str, chars: int | None) -> str:
    if chars is None:
        return text
    return cut(text, chars, head=chars, marker="\n[... {n} more characters not shown]")[0]
