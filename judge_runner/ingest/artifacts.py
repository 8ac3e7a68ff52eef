"""Rebuild the files an agent produced by replaying its file-writing tool calls in order.

Write sets a file's content; Edit and MultiEdit apply their replacements to the content known so
far (or to the ``originalFile`` the harness echoed back, when the file existed before the run);
a shell heredoc ``cat > f << 'EOF'`` sets content exactly. A call that failed, or never got a
result, is not applied. A file whose content cannot be known for certain — written by a shell
redirect, edited from an unknown base, an edit whose old text is not where we expect it — is
recorded with provenance ``unknown`` and no content: content is never guessed. Each record lists
the steps that wrote the file (trajectory indices, which equal raw step indices).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from judge_runner.cases import ArtifactProvenance
from judge_runner.ingest import shell
from judge_runner.ingest.normalize import files_written
from judge_runner.ingest.raw import RawKind, RawRun, RawStep

_MUTATING = re.compile(r"\b(sed\s+-i|mv|rm|cp|truncate|chmod|perl\s+-i)\b")


@dataclass
class FileState:
    path: str  # absolute, normalized, as the agent saw it
    content: str | None = None
    steps: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # events worth knowing, kept to the end
    unknown_reason: str | None = None  # why content is unknown; cleared when content is known again

    def known(self, content: str) -> None:
        self.content = content
        self.unknown_reason = None

    @property
    def note(self) -> str | None:
        parts = self.notes + ([self.unknown_reason] if self.unknown_reason else [])
        return "; ".join(parts) or None

    @property
    def provenance(self) -> ArtifactProvenance:
        return ArtifactProvenance.UNKNOWN if self.content is None else \
            ArtifactProvenance.RECONSTRUCTED


def agent_path(path: str, cwd: str | None) -> str:
    """Absolute normalized path as seen inside the agent's machine (``..`` resolved lexically)."""
    joined = posixpath.join(cwd or "/", path)
    normalized = posixpath.normpath(joined)
    return "/" + normalized.lstrip("/")


def reconstruct(run: RawRun) -> list[FileState]:
    """Final state of every file the run wrote, in order of first write."""
    files: dict[str, FileState] = {}
    for index, raw in enumerate(run.steps):
        if raw.kind is not RawKind.TOOL or raw.arguments is None:
            continue
        targets = [agent_path(p, run.cwd) for p in files_written(raw)]
        if raw.tool == "Bash":
            _note_shell_changes(raw, index, files)
        for path in targets:
            state = files.setdefault(path, FileState(path))
            state.steps.append(index)
            _apply(raw, index, state, run.cwd)
    return list(files.values())


def _apply(raw: RawStep, index: int, state: FileState, cwd: str | None) -> None:
    args = raw.arguments or {}
    if not raw.has_result:
        _unknown(state, f"step {index}: {raw.tool} call has no recorded result")
        return
    if raw.is_error:
        state.notes.append(f"step {index}: {raw.tool} failed and was not applied")
        return
    if raw.tool == "Write":
        content = args.get("content")
        if isinstance(content, str):
            state.known(content)
        else:
            _unknown(state, f"step {index}: Write without text content")
    elif raw.tool in ("Edit", "MultiEdit"):
        edits = args.get("edits") if raw.tool == "MultiEdit" else [args]
        _apply_edits(state, edits, index, raw.structured_result)
    elif raw.tool == "Bash":
        written = shell.heredoc_write(str(args.get("command", "")))
        if written is not None and agent_path(written.path, cwd) == state.path:
            state.known(written.content)
        else:
            _unknown(state, f"step {index}: written by a shell command")
    else:
        _unknown(state, f"step {index}: {raw.tool} cannot be replayed")


def _apply_edits(state: FileState, edits: Any, index: int, structured: Any) -> None:
    base = state.content
    if base is None and isinstance(structured, dict) and isinstance(
            structured.get("originalFile"), str):
        base = structured["originalFile"]  # the file existed before the run; the harness echoed it
    if base is None:
        _unknown(state, f"step {index}: edit of a file whose earlier content is unknown")
        return
    for edit in edits if isinstance(edits, list) else []:
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or old not in base:
            _unknown(state, f"step {index}: edit text not found in the reconstructed file")
            return
        base = base.replace(old, new) if edit.get("replace_all") else base.replace(old, new, 1)
    state.known(base)


def _unknown(state: FileState, reason: str) -> None:
    state.content = None
    state.unknown_reason = reason


def _note_shell_changes(raw: RawStep, index: int, files: dict[str, FileState]) -> None:
    """Flag known files that a later shell command may have changed in ways we cannot replay."""
    command = str((raw.arguments or {}).get("command", ""))
    if not _MUTATING.search(command):
        return
    for path, state in files.items():
        if path in command or posixpath.basename(path) in command.split():
            state.notes.append(f"step {index}: a shell command may have changed or removed it")
