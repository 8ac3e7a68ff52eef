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
returned unchanged with an unknown exit code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
