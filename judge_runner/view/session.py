"""The agent judge's own tool calls (commands, pages read and what they returned), read back from
the case's recorded transcript.

The last recorded model call holds the whole conversation up to its answer: every earlier
`tool_use` block in an assistant message and the `tool_result` the runner sent back for it.
Those results are exactly the outputs the judge's quotes were verified against. Only the
inspection tools (`bash`, `read_file`) and unknown tools are listed; the protocol tools'
content is the plan, the inspection log and the verdict themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_runner.judges import READ_FILE, RECORD_INSPECTION, SUBMIT_VERDICT, WRITE_PLAN
from judge_runner.models import read_transcript

_PROTOCOL = frozenset({WRITE_PLAN, RECORD_INSPECTION, SUBMIT_VERDICT})


@dataclass(frozen=True)
class JudgeCall:
    id: str
    name: str
    input: dict[str, Any]
    output: str | None  # None when no result was sent back (the session ended first)
    is_error: bool

    @property
    def shown_input(self) -> str:
        """The command for bash, the path and page for read_file, else the input as JSON."""
        command = self.input.get("command")
        if isinstance(command, str):
            return command
        if self.name == READ_FILE and isinstance(self.input.get("path"), str):
            offset = self.input.get("offset", 0)
            limit = self.input.get("limit")
            page = f" (offset {offset}" + (f", limit {limit})" if limit is not None else ")")
            return f"{self.input['path']}{page}"
        return json.dumps(self.input, indent=1, ensure_ascii=False, sort_keys=True)


def judge_calls(transcript: Path) -> tuple[list[JudgeCall], list[str]]:
    """The inspection calls of the session recorded in `transcript`, in order, and problems.

    A missing transcript (a judge that records none) gives no calls and no problem; unreadable
    lines are named in the problems and skipped.
    """
    if not transcript.is_file():
        return [], []
    try:
        entries, problems = read_transcript(transcript)
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{transcript}: {exc}"]
    answered = [e for e in entries if e.response is not None]
    if not answered:
        return [], problems
    last = max(answered, key=lambda e: e.seq)
    assert last.response is not None
    messages = [*last.request.messages, {"role": "assistant", "content": last.response.content}]
    uses: list[dict[str, Any]] = []
    results: dict[str, tuple[str, bool]] = {}
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and message.get("role") == "assistant":
                uses.append(block)
            elif block.get("type") == "tool_result":
                results[str(block.get("tool_use_id"))] = (_result_text(block.get("content")),
                                                          bool(block.get("is_error")))
    calls = []
    for use in uses:
        name, call_id = str(use.get("name", "")), str(use.get("id", ""))
        if name in _PROTOCOL:
            continue
        raw_input = use.get("input")
        output, is_error = results.get(call_id, (None, False))
        calls.append(JudgeCall(id=call_id, name=name,
                               input=raw_input if isinstance(raw_input, dict) else {},
                               output=output, is_error=is_error))
    return calls, problems


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""
