"""The parsers' common output: a raw run, full-length and in event order.

Parsers (`claude_code`, `atif`) turn a transcript into a `RawRun`; the normalizer cuts it down to
the fixed-schema `Trajectory`, and the artifact reconstructor replays its file writes. Nothing here
is truncated: truncation is the normalizer's job, so artifacts are rebuilt from full contents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from judge_runner.cases import TerminationStatus


class RawKind(StrEnum):
    TEXT = "text"  # assistant text (or reasoning)
    TOOL = "tool"  # a tool call, with its result when one arrived
    SKILL = "skill"  # a skill invocation and the skill body injected for it
    NOTICE = "notice"  # harness events: notifications, non-JSON lines, stray user text


@dataclass
class RawStep:
    kind: RawKind
    text: str | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    arguments: dict[str, Any] | None = None
    output: str | None = None
    is_error: bool = False
    exit_code: int | None = None
    skill: str | None = None
    # The harness's structured copy of a tool result (Claude Code `tool_use_result`). Dropped by the
    # normalizer as a duplicate, but the artifact reconstructor reads file contents from it.
    structured_result: Any = None
    has_result: bool = False
    # The separate shell commands of one call when a harness sends several at once (terminus-2
    # keystroke batches); the artifact reconstructor reads each on its own. Not normalized.
    commands: list[str] | None = None


@dataclass
class RawRun:
    source_format: str
    steps: list[RawStep]
    skills: list[str] | None  # skills the harness offered the agent; None when the format lacks it
    cwd: str | None = None
    model: str | None = None
    agent: str | None = None
    final_message: str | None = None
    status: TerminationStatus = TerminationStatus.NO_RESULT
    result_subtype: str | None = None
    num_turns: int | None = None
    duration_ms: int | None = None
    raw_chars: int = 0
    warnings: list[str] = field(default_factory=list)
    # What the format cannot show a judge (files typed into an editor, say): case.json `notes`.
    notes: list[str] = field(default_factory=list)


class TranscriptError(Exception):
    """A transcript that cannot be read as any supported format; the message says why and where."""
