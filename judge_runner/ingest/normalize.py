"""Deterministic rule-based conversion of a `RawRun` into the fixed-schema `Trajectory`.

Rules:

* Every raw step becomes exactly one normalized step, in order, with contiguous indices; nothing
  is dropped, so every error result, file write, skill use and the final message survive.
  What *is* dropped is noise the parsers already left behind (init lists, usage blocks, the
  harness's duplicate `tool_use_result` dumps).
* Long text is cut head + tail around an explicit marker ``[... N characters omitted ...]`` and
  the step's ``omitted_chars`` says how much was cut in total; nothing is shortened silently.
  Tails are kept because that is where tracebacks and summaries live.
* The last assistant message, when it is the final result word for word, holds the pointer
  ``[identical to final_message]`` instead of a second copy.
* TodoWrite lists are reduced to ``"<status>: <content>"`` lines (the ``activeForm`` wording
  repeats each item), and the echoed JSON of the old and new lists is not kept.
* ``files_touched`` lists the paths a step writes: the targets of write and edit tools (Claude
  Code's Write/Edit/MultiEdit/NotebookEdit, gemini-cli's write_file/replace; see `tools`) and
  shell redirect targets (best effort). Reads are not writes and are not listed.

Identical input gives identical output: no clocks, no randomness, no unordered iteration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge_runner.cases import Step, StepKind, Termination, Trajectory
from judge_runner.core import SAME_AS_FINAL
from judge_runner.ingest import shell, tools
from judge_runner.ingest.raw import RawKind, RawRun, RawStep
from judge_runner.text import cut


@dataclass(frozen=True)
class NormalizeOptions:
    """Cut limits in characters (head + tail kept, marker in between).

    max_text: assistant text and notices (3000). max_output: tool output (2000).
    max_argument: each string inside tool arguments (1200; full file contents live in artifacts/).
    max_skill_body: an injected skill body (800; the full skill is in skills/<name>/).
    max_final: the final message (8000).
    """

    max_text: int = 3000
    max_output: int = 2000
    max_argument: int = 1200
    max_skill_body: int = 800
    max_final: int = 8000


def normalize(run: RawRun, case_id: str, options: NormalizeOptions | None = None,
              exception: str | None = None) -> Trajectory:
    opts = options or NormalizeOptions()
    steps = [_step(i, raw, opts) for i, raw in enumerate(run.steps)]
    final = cut(run.final_message, opts.max_final)[0] if run.final_message else None
    if final is not None:
        steps = _point_to_final(steps, run)
    return Trajectory(
        case_id=case_id,
        source_format=run.source_format,
        steps=steps,
        final_message=final,
        termination=Termination(status=run.status, result_subtype=run.result_subtype,
                                num_turns=run.num_turns, duration_ms=run.duration_ms,
                                exception=exception),
    )


def _point_to_final(steps: list[Step], run: RawRun) -> list[Step]:
    """The last assistant message usually repeats the final result verbatim: say so, don't copy."""
    for pos in range(len(run.steps) - 1, -1, -1):
        raw = run.steps[pos]
        if raw.kind is RawKind.TEXT:
            if raw.text is not None and raw.text.strip() == (run.final_message or "").strip():
                steps[pos] = steps[pos].model_copy(update={"text": SAME_AS_FINAL,
                                                           "omitted_chars": 0})
            break
    return steps


def files_written(raw: RawStep) -> list[str]:
    """Paths a raw step writes, as the agent named them (best effort for shell commands)."""
    if raw.kind is not RawKind.TOOL or raw.arguments is None:
        return []
    path = tools.written_path(raw.tool, raw.arguments)
    if path is not None:
        return [path]
    found: list[str] = []
    for command in shell_commands(raw):
        found += shell.redirect_targets(command)
    return list(dict.fromkeys(found))


def shell_commands(raw: RawStep) -> list[str]:
    """The shell commands a raw tool step ran, each on its own (none for other tools)."""
    if raw.commands is not None:
        return raw.commands
    command = tools.shell_command(raw.tool, raw.arguments or {})
    return [command] if command is not None else []


_KIND = {RawKind.TEXT: StepKind.ASSISTANT_MESSAGE, RawKind.TOOL: StepKind.TOOL_CALL,
         RawKind.SKILL: StepKind.SKILL_USE, RawKind.NOTICE: StepKind.NOTICE}


def _step(index: int, raw: RawStep, opts: NormalizeOptions) -> Step:
    omitted = 0
    text = None
    if raw.text is not None:
        limit = opts.max_skill_body if raw.kind is RawKind.SKILL else opts.max_text
        text, n = cut(raw.text, limit)
        omitted += n
    output = None
    if raw.output is not None:
        output, n = cut(raw.output, opts.max_output)
        omitted += n
    arguments = None
    if raw.arguments is not None:
        args = _compact_todos(raw.arguments) if raw.tool == "TodoWrite" else raw.arguments
        arguments, n = _cut_value(args, opts.max_argument)
        omitted += n
    return Step(index=index, kind=_KIND[raw.kind], text=text, tool=raw.tool,
                tool_use_id=raw.tool_use_id, arguments=arguments, output=output,
                is_error=raw.is_error, exit_code=raw.exit_code, files_touched=files_written(raw),
                skill=raw.skill, omitted_chars=omitted)


def _compact_todos(arguments: dict[str, Any]) -> dict[str, Any]:
    todos = arguments.get("todos")
    if not isinstance(todos, list):
        return arguments
    lines = [f"{t.get('status', '?')}: {t.get('content', '')}" if isinstance(t, dict) else str(t)
             for t in todos]
    return {**arguments, "todos": lines}


def _cut_value(value: Any, limit: int) -> tuple[Any, int]:
    if isinstance(value, str):
        return cut(value, limit)
    if isinstance(value, dict):
        total = 0
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[str(key)], n = _cut_value(item, limit)
            total += n
        return out, total
    if isinstance(value, list):
        total = 0
        items = []
        for item in value:
            cut_item, n = _cut_value(item, limit)
            items.append(cut_item)
            total += n
        return items, total
    return value, 0
