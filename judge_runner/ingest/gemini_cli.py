"""What gemini-cli's tool results say, read out of the text Harbor's ATIF conversion keeps.

gemini-cli frames every ``run_shell_command`` result as::

    Command: <the command>
    Directory: <folder, "(root)" for the project root>
    Output: <stdout and stderr>
    Error: <"(none)" or an error message>
    Exit Code: <n or "(none)">
    Signal: ...  Background PIDs: ...  Process Group PGID: ...

`shell_result` keeps the command's output (and the error line when there is one) and reads the
exit code, so a gemini-cli shell call reads like any other harness's. Text in another shape is
returned unchanged with an unknown exit code. `with_own_log` adds from gemini-cli's own session
log (``agent/gemini-cli.trajectory.json``) what the ATIF conversion loses; `from_own_log` reads
that log alone when the ATIF file is missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_runner.cases import TerminationStatus
from judge_runner.ingest import tools
from judge_runner.ingest.paths import NotRegularFileError, describe, read_regular
from judge_runner.ingest.raw import RawKind, RawRun, RawStep, TranscriptError

SHELL_TOOL = "run_shell_command"
_TAIL = re.compile(r"\nError: (?P<error>.*?)\nExit Code: (?P<code>[^\n]*)(?:\n(?:Signal|Background "
                   r"PIDs|Process Group PGID): [^\n]*)*\s*\Z", re.S)
_EMPTY = ("(empty)", "(none)", "")


@dataclass(frozen=True)
class ShellResult:
    output: str
    exit_code: int | None
    is_error: bool


def shell_result(text: str, command: str | None) -> ShellResult | None:
    """The output, exit code and failure of a framed shell result; None when not framed."""
    if not text.startswith("Command: "):
        return None
    start = len("Command: ") + len(command) if command and text.startswith(
        f"Command: {command}") else 0
    directory = text.find("\nDirectory: ", start)
    body_at = text.find("\nOutput: ", directory if directory >= 0 else start)
    tail = _TAIL.search(text, body_at if body_at >= 0 else 0)
    if body_at < 0 or tail is None:
        return None
    body = text[body_at + len("\nOutput: "):tail.start()]
    error = tail.group("error").strip()
    code_text = tail.group("code").strip()
    code = int(code_text) if code_text.lstrip("-").isdigit() else None
    parts = [] if body.strip() in _EMPTY else [body]
    if error not in _EMPTY:
        parts.append(f"Error: {error}")
    failed = (code is not None and code != 0) or error not in _EMPTY
    return ShellResult(output="\n".join(parts), exit_code=code, is_error=failed)


OWN_LOG = "agent/gemini-cli.trajectory.json"
MAX_OWN_LOG_BYTES = 512 * 1024 * 1024


def with_own_log(trial: Path, run: RawRun) -> RawRun:
    """Fill in from gemini-cli's own session log what Harbor's ATIF conversion drops: a call's
    failure (``status: error`` and its message; the ATIF keeps no content for it) and, for
    ``write_file`` / ``replace``, the file's content before the call (``originalContent``), so an
    edit of a file that existed before the run can be rebuilt. A missing or unreadable log
    changes nothing (a warning says why when it is there but unusable)."""
    if not (run.agent or "").startswith("gemini-cli") or describe(trial / OWN_LOG) is None:
        return run
    try:
        doc = json.loads(read_regular(trial / OWN_LOG, MAX_OWN_LOG_BYTES).decode("utf-8"))
    except (NotRegularFileError, OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        run.warnings.append(f"{OWN_LOG} not used: {exc}")
        return run
    messages = doc.get("messages") if isinstance(doc, dict) else None
    calls = {str(c.get("id")): c for m in messages or [] if isinstance(m, dict)
             for c in m.get("toolCalls") or [] if isinstance(c, dict)}
    for step in run.steps:
        call = calls.get(step.tool_use_id or "")
        if call is not None:
            _enrich(step, call)
    return run


def _enrich(step: RawStep, call: dict[str, Any]) -> None:
    if call.get("status") == "error":
        step.is_error = True
        step.has_result = True
        error = _error_text(call) or "error (no message logged)"
        if not step.output or step.output == "None":
            step.output = error
        elif error not in step.output:
            step.output = f"{step.output}\n{error}"
    display = call.get("resultDisplay")
    if isinstance(display, dict) and isinstance(display.get("originalContent"), str) and \
            not display.get("isNewFile"):
        step.structured_result = {"originalFile": display["originalContent"]}


def _error_text(call: dict[str, Any]) -> str | None:
    for item in call.get("result") or []:
        response = (item.get("functionResponse") or {}).get("response") \
            if isinstance(item, dict) else None
        if isinstance(response, dict) and response.get("error"):
            return str(response["error"])
    display = call.get("resultDisplay")
    return display if isinstance(display, str) and display else None


FORMAT = "gemini-cli-session"


def from_own_log(trial: Path) -> RawRun | None:
    """The run from gemini-cli's own session log alone, for a trial whose ATIF
    ``trajectory.json`` is missing; None when there is no such log. The first user message is
    the task (carried by instruction.md); gemini messages give text, thoughts (as
    ``[thinking]``) and tool calls with their results; any other message is a notice."""
    if describe(trial / OWN_LOG) is None:
        return None
    try:
        raw = read_regular(trial / OWN_LOG, MAX_OWN_LOG_BYTES).decode("utf-8")
        doc = json.loads(raw)
    except (NotRegularFileError, OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TranscriptError(f"{OWN_LOG}: {exc}") from exc
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        raise TranscriptError(f"{OWN_LOG}: no 'messages' list")
    run = RawRun(source_format=FORMAT, steps=[], skills=None, agent="gemini-cli",
                 raw_chars=len(raw))
    seen_task = False
    last = None
    for message in (m for m in messages if isinstance(m, dict)):
        kind, content = message.get("type"), _content(message.get("content"))
        last = kind
        if kind == "gemini":
            _gemini(message, content, run)
        elif kind == "user" and not seen_task:
            seen_task = True
        elif content:
            run.steps.append(RawStep(RawKind.NOTICE, text=f"{kind} message: {content}"))
    run.status = TerminationStatus.COMPLETED if last == "gemini" else \
        TerminationStatus.NO_RESULT
    return run


def _gemini(message: dict[str, Any], content: str, run: RawRun) -> None:
    if isinstance(message.get("model"), str):
        run.model = message["model"]
    for thought in message.get("thoughts") or []:
        if isinstance(thought, dict) and thought.get("description"):
            run.steps.append(RawStep(RawKind.TEXT, text=f"[thinking] {thought.get('subject', '')}"
                                                       f": {thought['description']}"))
    if content:
        run.steps.append(RawStep(RawKind.TEXT, text=content))
        run.final_message = content
    for call in message.get("toolCalls") or []:
        if not isinstance(call, dict):
            continue
        name = str(call.get("name") or "unknown")
        raw_args = call.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        step = RawStep(RawKind.SKILL if name in tools.SKILL_TOOLS else RawKind.TOOL, tool=name,
                       tool_use_id=str(call.get("id") or "") or None, arguments=args,
                       has_result=call.get("status") is not None)
        step.skill = tools.skill_name(name, args) if step.kind is RawKind.SKILL else None
        step.output = _output(call)
        framed = shell_result(step.output, tools.shell_command(name, args)) \
            if name == SHELL_TOOL else None
        if framed is not None:
            step.output, step.exit_code, step.is_error = framed.output, framed.exit_code, \
                framed.is_error
        _enrich(step, call)
        if step.kind is RawKind.SKILL:
            step.text = step.output
        run.steps.append(step)


def _output(call: dict[str, Any]) -> str:
    for item in call.get("result") or []:
        response = (item.get("functionResponse") or {}).get("response") \
            if isinstance(item, dict) else None
        if isinstance(response, dict) and isinstance(response.get("output"), str):
            return str(response["output"])
    return ""


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p)
                         for p in value)
    return ""
