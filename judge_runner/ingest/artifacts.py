"""Rebuild the files an agent produced by replaying its file-writing tool calls in order.

Write (and every harness's whole-file write, see `tools`) sets a file's content; Edit, MultiEdit
and gemini-cli's replace apply their replacements to the content known so
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
from judge_runner.ingest import shell, tools
from judge_runner.ingest.normalize import shell_commands
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
    """Absolute normalized path as seen inside the agent's machine (``..`` resolved lexically).

    A path holding a NUL byte names no file (the system refuses it), so it is kept as given,
    not normalized: resolving its ``..`` would turn `/root/x\\0/../../etc` into a real-looking
    `/etc`. The importer then records it as an unknown artifact naming the NUL."""
    joined = posixpath.join(cwd or "/", path)
    if "\0" in joined:
        return "/" + joined.lstrip("/")
    normalized = posixpath.normpath(joined)
    return "/" + normalized.lstrip("/")


def reconstruct(run: RawRun) -> list[FileState]:
    """Final state of every file the run wrote, in order of first write."""
    files: dict[str, FileState] = {}
    for index, raw in enumerate(run.steps):
        if raw.kind is not RawKind.TOOL or raw.arguments is None:
            continue
        path = tools.written_path(raw.tool, raw.arguments)
        if path is not None:
            state = _state(files, agent_path(path, run.cwd), index)
            _note_relative(state, path, run.cwd)
            _apply_tool(raw, index, state)
            continue
        for command in shell_commands(raw):
            _note_shell_changes(command, index, files)
            for target in shell.redirect_targets(command):
                state = _state(files, agent_path(target, run.cwd), index)
                _note_relative(state, target, run.cwd)
                _apply_shell(raw, command, index, state, run.cwd)
    return list(files.values())


def _note_relative(state: FileState, path: str, cwd: str | None) -> None:
    note = "written by a relative path; the working directory is not logged, so it is shown from /"
    if cwd is None and not path.startswith("/") and note not in state.notes:
        state.notes.append(note)


def _state(files: dict[str, FileState], path: str, index: int) -> FileState:
    state = files.setdefault(path, FileState(path))
    if not state.steps or state.steps[-1] != index:
        state.steps.append(index)
    return state


def _applicable(raw: RawStep, index: int, state: FileState) -> bool:
    if not raw.has_result:
        _unknown(state, f"step {index}: {raw.tool} call has no recorded result")
        return False
    if raw.is_error:
        state.notes.append(f"step {index}: {raw.tool} failed and was not applied")
        return False
    return True


def _apply_tool(raw: RawStep, index: int, state: FileState) -> None:
    args = raw.arguments or {}
    if not _applicable(raw, index, state):
        return
    if raw.tool in tools.WRITE_TOOLS:
        content = args.get(tools.WRITE_TOOLS[raw.tool][1])
        if isinstance(content, str):
            state.known(content)
        else:
            _unknown(state, f"step {index}: {raw.tool} without text content")
    elif raw.tool == "NotebookEdit":
        _unknown(state, f"step {index}: {raw.tool} cannot be replayed")
    else:
        _apply_edits(state, tools.edits(raw.tool, args), index, raw.structured_result)


def _apply_shell(raw: RawStep, command: str, index: int, state: FileState,
                 cwd: str | None) -> None:
    # In a batch of commands (terminus-2) an error belongs to some command, not to the batch.
    batch = raw.commands is not None and raw.has_result
    if not batch and not _applicable(raw, index, state):
        return
    written = shell.heredoc_write(command)
    if written is not None and agent_path(written.path, cwd) == state.path:
        state.known(written.content)
    else:
        _unknown(state, f"step {index}: written by a shell command")


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


def _note_shell_changes(command: str, index: int, files: dict[str, FileState]) -> None:
    """Flag known files that a later shell command may have changed in ways we cannot replay."""
    if not _MUTATING.search(command):
        return
    for path, state in files.items():
        if path in command or posixpath.basename(path) in command.split():
            state.notes.append(f"step {index}: a shell command may have changed or removed it")
