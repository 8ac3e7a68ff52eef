"""Parser for Claude Code `--output-format stream-json` transcripts (`agent/claude-code.txt`).

One JSON event per line. What the parser makes of each event:

* ``system/init``: the skills list (what the agent *had*), cwd and model; the other init lists
  (tools, slash commands, agents, plugins) are noise and dropped.
* ``assistant``: each ``text``/``thinking`` block becomes a text step, each ``tool_use`` block a
  tool step (a ``Skill`` call becomes a skill step). Usage blocks are dropped.
* ``user``: a ``tool_result`` block fills in the matching call's output; the synthetic message
  Claude Code injects after a skill call ("Base directory for this skill: ...") becomes that skill
  step's body; any other user text becomes a notice.
* ``system/task_notification``: a notice (these may arrive after the final result).
* ``result``: termination status, turn count, duration and the final message.

Real transcripts carry quirks the parser survives rather than rejects: non-JSON lines (harness
warnings) become notices, truncated or garbled JSON lines are skipped with a warning naming the
line, and a stream without a ``result`` event ends with status ``no_result`` (a timeout or crash).
A file with no recognizable event at all raises `TranscriptError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from judge_runner.cases import TerminationStatus
from judge_runner.ingest.raw import RawKind, RawRun, RawStep, TranscriptError

FORMAT = "claude-code-stream-json"
_SKILL_BODY_PREFIX = "Base directory for this skill:"
_EXIT_CODE = re.compile(r"^(?:Error: )?Exit code (\d+)")
_KNOWN_TYPES = frozenset({"system", "assistant", "user", "result"})
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit"})
_NON_SPACE = re.compile(r"\S")


def parse(text: str) -> RawRun:
    """Parse a whole transcript held in memory (see `parse_lines`)."""
    return parse_lines(_lines_with_ends(text))


def parse_lines(lines: Iterable[str]) -> RawRun:
    """Parse a transcript given line by line (each line with its newline, as a file yields it).

    Lines are split on "\\n" only (a JSON string may hold U+2028 and friends raw). Only one line
    and its parsed event are held at a time, so a transcript can be streamed from disk. Raises
    `TranscriptError` when no line is a Claude Code event.
    """
    run = RawRun(source_format=FORMAT, steps=[], skills=None)
    parser = _Parser(run)
    recognized = 0
    raw_chars = 0
    for lineno, line in enumerate(lines, start=1):
        raw_chars += len(line)
        first = _NON_SPACE.search(line)
        if first is None:
            continue
        if line[first.start()] != "{":
            # Harness output mixed into the stream (e.g. a shell pre-flight warning).
            run.steps.append(RawStep(RawKind.NOTICE,
                                     text=f"non-JSON transcript line: {line.strip()}"))
            continue
        try:
            event = _loads(line)
        except json.JSONDecodeError as exc:
            run.warnings.append(
                f"line {lineno}: truncated or malformed JSON event skipped ({exc.msg})")
            continue
        except RecursionError:  # hostile input: nesting deeper than the parser's stack
            run.warnings.append(
                f"line {lineno}: truncated or malformed JSON event skipped (nested too deeply)")
            continue
        if not isinstance(event, dict) or event.get("type") not in _KNOWN_TYPES:
            run.warnings.append(f"line {lineno}: unrecognized event skipped")
            continue
        recognized += 1
        parser.feed(event)
    run.raw_chars = raw_chars
    if recognized == 0:
        raise TranscriptError("no Claude Code stream-json event found (expected JSON lines with "
                              "type system/assistant/user/result)")
    return run


def _loads(line: str) -> Any:
    """One event; the line is parsed as it is (no stripped copy of a long line), and stripped
    only when whitespace JSON does not allow surrounds it."""
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        stripped = line.strip()
        if len(stripped) + 1 >= len(line):
            raise
        return json.loads(stripped)


def _lines_with_ends(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


class _Parser:
    def __init__(self, run: RawRun) -> None:
        self.run = run
        self.pending: dict[str, RawStep] = {}  # tool_use_id -> call still waiting for its result

    def feed(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "system":
            self._system(event)
        elif kind == "assistant":
            self._assistant(event)
        elif kind == "user":
            self._user(event)
        else:
            self._result(event)

    def _system(self, event: dict[str, Any]) -> None:
        subtype = event.get("subtype")
        if subtype == "init":
            skills = event.get("skills")
            if isinstance(skills, list):
                # Real init events repeat names (project + user skill dirs); keep first occurrence.
                self.run.skills = list(dict.fromkeys(str(s) for s in skills))
            self.run.cwd = _str_or_none(event.get("cwd"))
            self.run.model = _str_or_none(event.get("model"))
            version = _str_or_none(event.get("claude_code_version"))
            self.run.agent = f"claude-code {version}" if version else "claude-code"
        elif subtype == "task_notification":
            summary = event.get("summary") or f"task {event.get('task_id')} {event.get('status')}"
            self.run.steps.append(RawStep(RawKind.NOTICE, text=f"task notification: {summary}"))
        else:
            self.run.steps.append(RawStep(RawKind.NOTICE, text=f"system event: {subtype}"))

    def _assistant(self, event: dict[str, Any]) -> None:
        for block in _blocks(event):
            btype = block.get("type")
            if btype == "text" and block.get("text"):
                self.run.steps.append(RawStep(RawKind.TEXT, text=str(block["text"])))
            elif btype == "thinking" and block.get("thinking"):
                self.run.steps.append(RawStep(RawKind.TEXT, text=f"[thinking] {block['thinking']}"))
            elif btype == "tool_use":
                self._tool_use(block)

    def _tool_use(self, block: dict[str, Any]) -> None:
        name = str(block.get("name") or "unknown")
        args = block.get("input")
        arguments = args if isinstance(args, dict) else {"input": args}
        step = RawStep(RawKind.TOOL, tool=name, tool_use_id=_str_or_none(block.get("id")),
                       arguments=arguments)
        if name == "Skill":
            step.kind = RawKind.SKILL
            step.skill = _str_or_none(arguments.get("skill"))
        self.run.steps.append(step)
        if step.tool_use_id:
            self.pending[step.tool_use_id] = step

    def _user(self, event: dict[str, Any]) -> None:
        structured = event.get("tool_use_result")
        for block in _blocks(event):
            btype = block.get("type")
            if btype == "tool_result":
                self._tool_result(block, structured)
            elif btype == "text" and block.get("text"):
                self._user_text(str(block["text"]))

    def _tool_result(self, block: dict[str, Any], structured: Any) -> None:
        use_id = _str_or_none(block.get("tool_use_id"))
        output = _result_text(block.get("content"))
        is_error = bool(block.get("is_error"))
        step = self.pending.pop(use_id, None) if use_id else None
        if step is None:
            self.run.steps.append(RawStep(
                RawKind.NOTICE, text=f"tool result without a matching call (tool_use_id={use_id})",
                output=output, is_error=is_error))
            return
        step.output = output
        step.is_error = is_error
        step.has_result = True
        step.exit_code = _exit_code(step, output, structured)
        if step.tool in _EDIT_TOOLS:
            # Only edits need the harness's copy (the file's text before the run); for any other
            # tool it duplicates the output, and a run's outputs can be hundreds of megabytes.
            step.structured_result = structured

    def _user_text(self, text: str) -> None:
        if text.startswith(_SKILL_BODY_PREFIX):
            first_line, _, body = text.partition("\n")
            name = first_line[len(_SKILL_BODY_PREFIX):].strip().rstrip("/").rsplit("/", 1)[-1]
            for step in reversed(self.run.steps):
                if step.kind is RawKind.SKILL and step.skill == name and step.text is None:
                    step.text = body.lstrip("\n")
                    return
            self.run.steps.append(RawStep(RawKind.SKILL, skill=name, text=body.lstrip("\n")))
            return
        self.run.steps.append(RawStep(RawKind.NOTICE, text=f"user message: {text}"))

    def _result(self, event: dict[str, Any]) -> None:
        subtype = _str_or_none(event.get("subtype"))
        failed = bool(event.get("is_error")) or (subtype is not None and subtype != "success")
        self.run.status = TerminationStatus.ERROR if failed else TerminationStatus.COMPLETED
        self.run.result_subtype = subtype
        self.run.num_turns = _int_or_none(event.get("num_turns"))
        self.run.duration_ms = _int_or_none(event.get("duration_ms"))
        result = event.get("result")
        if isinstance(result, str) and result:
            self.run.final_message = result


def _blocks(event: dict[str, Any]) -> list[dict[str, Any]]:
    message = event.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _result_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                parts.append(str(item.get("text", "")))
            elif isinstance(item, dict):
                parts.append(f"[{item.get('type', 'non-text')} content]")
            else:
                parts.append(str(item))
        return "\n".join(parts)
    return json.dumps(content, sort_keys=True, ensure_ascii=False)


def _exit_code(step: RawStep, output: str, structured: Any) -> int | None:
    """Exit code of a shell call when the transcript shows it; None when it cannot be known."""
    if step.tool != "Bash":
        return None
    match = _EXIT_CODE.match(output)
    if match:
        return int(match.group(1))
    if isinstance(structured, dict):
        if structured.get("backgroundTaskId") or structured.get("interrupted"):
            return None  # still running in the background, or cut off: no exit status yet
        return 0
    return None if step.is_error else 0


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
