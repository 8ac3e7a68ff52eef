"""What the tools of each harness do to files: the shared vocabulary of the parsers.

Harnesses name the same actions differently: Claude Code's ``Write``/``Edit``/``Bash``,
gemini-cli's ``write_file``/``replace``/``run_shell_command``, terminus-2's keystroke batches
(recorded as ``terminal`` calls). The normalizer and the artifact reconstructor ask this module,
never a harness's tool names directly, so a case reads the same whatever harness produced it.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

# Tools that set a file's whole content: tool -> (path argument, content argument).
WRITE_TOOLS: dict[str, tuple[str, str]] = {
    "Write": ("file_path", "content"),
    "write_file": ("file_path", "content"),
    "create_file": ("path", "file_text"),
}
# Tools that replace text in a file: tool -> path argument. Their edits are read by `edits`.
EDIT_TOOLS: dict[str, str] = {"Edit": "file_path", "MultiEdit": "file_path",
                              "replace": "file_path", "NotebookEdit": "notebook_path"}
# Tools whose `command` argument is run by a shell.
SHELL_TOOLS = frozenset({"Bash", "run_shell_command", "terminal", "bash", "shell",
                         "execute_command", "bash_session", "bash_command"})
# Tools that read one file: tool -> the path arguments they may use.
READ_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": ("file_path",), "read_file": ("file_path", "absolute_path", "path"),
    "view": ("path",), "read": ("path", "file_path"),
}
# Tools that load a skill by name: tool -> the name arguments they may use.
SKILL_TOOLS: dict[str, tuple[str, ...]] = {"Skill": ("skill", "name"),
                                           "activate_skill": ("name", "skill"),
                                           "load_skill": ("name", "skill")}
SKILL_FILE = "SKILL.md"
_CAT_SKILL = re.compile(r"^\s*cat\s+(['\"]?)(?P<path>[^\s'\"]+/" + SKILL_FILE + r")\1\s*$")


def written_path(tool: str | None, arguments: dict[str, Any]) -> str | None:
    """The path a write or edit tool call targets, None for any other call."""
    key = WRITE_TOOLS[tool][0] if tool in WRITE_TOOLS else EDIT_TOOLS.get(tool or "")
    path = arguments.get(key) if key else None
    return path if isinstance(path, str) and path else None


def shell_command(tool: str | None, arguments: dict[str, Any]) -> str | None:
    command = arguments.get("command") if tool in SHELL_TOOLS else None
    return command if isinstance(command, str) else None


def edits(tool: str | None, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The replacements of an edit call as ``old_string``/``new_string``/``replace_all``."""
    if tool == "MultiEdit":
        listed = arguments.get("edits")
        return [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    if tool == "replace":  # gemini-cli: `expected_replacements` > 1 replaces every occurrence
        count = arguments.get("expected_replacements")
        many = isinstance(count, int | str) and str(count).isdigit() and int(str(count)) > 1
        return [{**arguments, "replace_all": many}]
    return [arguments]


def skill_read(tool: str | None, arguments: dict[str, Any]) -> str | None:
    """The skill a call reads the SKILL.md of (a read tool, or a shell call that is only
    ``cat <dir>/SKILL.md``), by its folder name; None for any other call."""
    path = None
    for key in READ_TOOLS.get(tool or "", ()):
        value = arguments.get(key)
        if isinstance(value, str) and posixpath.basename(value) == SKILL_FILE:
            path = value
            break
    command = shell_command(tool, arguments)
    if path is None and command is not None:
        match = _CAT_SKILL.match(command)
        path = match.group("path") if match else None
    if path is None:
        return None
    name = posixpath.basename(posixpath.dirname(posixpath.normpath(path)))
    return name or None


def skill_name(tool: str | None, arguments: dict[str, Any]) -> str | None:
    """The skill a skill-loading call names; None when `tool` loads no skill or names none."""
    for key in SKILL_TOOLS.get(tool or "", ()):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return None
