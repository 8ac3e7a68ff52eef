"""Best-effort reading of shell commands: which files a command writes, and heredoc contents.

Only the plain cases are recognized: ``cmd > path``, ``cmd >> path``, ``tee [-a] path`` and
``cat > path << 'EOF' ... EOF``. Anything cleverer (variables in paths, scripts that open files
themselves) is invisible here; callers must treat a missing answer as "unknown", never as
"no write".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATH = r"([\w./~-][\w./~+-]*)"
_REDIRECT = re.compile(r"(?<![0-9&<>=-])(>>?)\s*(?!&)" + _PATH)
_TEE = re.compile(r"\btee\s+(?:-a\s+)?" + _PATH)
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_HEREDOC_CAT = re.compile(
    # optional leading `mkdir -p dir &&` style commands on the same line, then the cat heredoc
    r"^(?:[^\n<>]*?(?:&&|;)\s*)?\s*cat\s*(?:>\s*(?P<p1>[^\s;&|<>]+)\s*<<-?\s*(?P<q1>['\"]?)(?P<d1>\w+)(?P=q1)"
    r"|<<-?\s*(?P<q2>['\"]?)(?P<d2>\w+)(?P=q2)\s*>\s*(?P<p2>[^\s;&|<>]+))\s*\n",
)
_CHANGES = re.compile(r"\b(sed\s+-i|mv|rm|cp|truncate|perl\s+-i|patch|dd|tee|ln)\b")
_IGNORED = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass(frozen=True)
class HeredocWrite:
    path: str
    content: str


def redirect_targets(command: str) -> list[str]:
    """Paths a command appears to write through redirection or tee, in order of appearance."""
    # Quoted strings (inline scripts, messages) hold '>' that are not redirects.
    body = _QUOTED.sub("''", _strip_heredoc_bodies(command))
    found = [m.group(2) for m in _REDIRECT.finditer(body)]
    found += [m.group(1) for m in _TEE.finditer(body)]
    paths = [p.strip("'\"") for p in found]
    return [p for p in dict.fromkeys(paths) if p and p not in _IGNORED]


def heredoc_write(command: str) -> HeredocWrite | None:
    """The file written by a command starting with one ``cat > path <<EOF`` heredoc, if it does.

    Commands after the heredoc are allowed when none of them may write the file again (a
    redirect to it, or its name beside mv/cp/rm/sed -i/...); running it (``python3 f.py``) is
    fine.

    Returns None when the body could differ from what was written: an unquoted delimiter with
    ``$`` or backticks in the body would have been expanded by the shell.
    """
    match = _HEREDOC_CAT.match(command)
    if match is None:
        return None
    path = match.group("p1") or match.group("p2")
    delim = match.group("d1") or match.group("d2")
    quoted = bool(match.group("q1") or match.group("q2"))
    rest = command[match.end():]
    lines = rest.split("\n")
    try:
        end = next(i for i, line in enumerate(lines) if line.strip() == delim)
    except StopIteration:
        return None
    later = "\n".join(lines[end + 1:])
    if _touches(later, path.strip("'\"")):
        return None  # a later command may change the file again
    body = "\n".join(lines[:end]) + ("\n" if end else "")
    if not quoted and ("$" in body or "`" in body):
        return None
    return HeredocWrite(path=path.strip("'\""), content=body)


def _touches(commands: str, path: str) -> bool:
    """Whether later commands may write `path`: a redirect to it, or any mention of its name
    next to a command that moves, copies, removes or edits files in place."""
    if not commands.strip():
        return False
    name = path.rsplit("/", 1)[-1]
    if any(t.rsplit("/", 1)[-1] == name for t in redirect_targets(commands)):
        return True
    return name in commands and _CHANGES.search(commands) is not None


def _strip_heredoc_bodies(command: str) -> str:
    """Drop heredoc bodies so that '>' inside embedded scripts is not taken for a redirect."""
    out: list[str] = []
    delim: str | None = None
    for line in command.split("\n"):
        if delim is not None:
            if line.strip() == delim:
                delim = None
            continue
        out.append(line)
        match = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if match:
            delim = match.group(1)
    return "\n".join(out)
