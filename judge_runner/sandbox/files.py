"""File access inside a sandbox: the shell side of read_file/list_files and their results.

Both sandbox kinds read files by running a command *inside* the sandbox rather than opening
host paths, so a symlink in a case package resolves within the sandbox's view and cannot
reach labels or evidence on the host.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from judge_runner.core import CASES_DIR, EVIDENCE_DIR, LABELS_FILE
from judge_runner.sandbox.base import SandboxError
from judge_runner.sandbox.output import CappedStream

# How a sandbox runs an argv: (argv, stdout sink, stderr sink, deadline) -> (finished, exit code)
type Run = Callable[[list[str], CappedStream, CappedStream, float], tuple[bool, int | None]]
# Seconds a file read or listing may take before the sandbox counts as broken.
FILE_CALL_S = 60

# $1 path, $2 byte limit. Distinct statuses let the host raise the matching OSError.
READ_FILE_SCRIPT = r"""
[ -e "$1" ] || exit 66
[ -d "$1" ] && exit 67
[ -r "$1" ] || exit 68
exec head -c "$2" -- "$1"
"""
_MISSING, _IS_DIR, _DENIED = 66, 67, 68
# The NUL separator keeps names with newlines intact.
_LIST_SCRIPT = r"""
[ -e "$1" ] || exit 66
exec find "$1" -mindepth 1 \( -type f -o -type l \) -print0{stderr}
"""


def list_files_argv(path: str, *, drop_stderr: bool = False) -> list[str]:
    """argv listing the files under `path` (for `parse_file_list`). `drop_stderr` for
    environments that merge stderr into stdout, where find's complaints would become names."""
    script = _LIST_SCRIPT.format(stderr=" 2>/dev/null" if drop_stderr else "")
    return ["sh", "-c", script, "jr-list", path]


def read_file_result(
    path: str, finished: bool, code: int | None, data: bytes, stderr: str, limit: int,
    exact: bool,
) -> bytes:
    """Turn the outcome of READ_FILE_SCRIPT (asked for limit+1 bytes) into bytes or an error.

    With `exact`, a file longer than `limit` is an error (the caller set no limit of its own)."""
    if not finished:
        raise SandboxError(f"reading {path} did not finish in time")
    if code == _MISSING:
        raise FileNotFoundError(f"no such file in the sandbox: {path}")
    if code == _IS_DIR:
        raise IsADirectoryError(f"is a directory in the sandbox: {path}")
    if code == _DENIED:
        raise PermissionError(f"not readable in the sandbox: {path}")
    if code != 0:
        raise SandboxError(f"reading {path} failed (exit {code}): {stderr.strip()}")
    if len(data) > limit:
        if exact:
            raise SandboxError(f"{path} is larger than {limit} bytes; pass max_bytes to read "
                               "a prefix")
        return data[:limit]
    return data


def parse_file_list(
    path: str, finished: bool, code: int | None, data: bytes, stderr: str
) -> list[str]:
    if not finished:
        raise SandboxError(f"listing {path} did not finish in time")
    if code == _MISSING:
        raise FileNotFoundError(f"no such path in the sandbox: {path}")
    # find exits 1 when some subdirectory is unreadable; what it could list is still valid.
    if code not in (0, 1):
        raise SandboxError(f"listing {path} failed (exit {code}): {stderr.strip()}")
    names = data.decode("utf-8", errors="replace").split("\0")
    return sorted(n for n in names if n)


# Names that only a dataset root has: mounting such a directory would expose labels/evidence.
_DATASET_ONLY = (LABELS_FILE, EVIDENCE_DIR, CASES_DIR)


def check_case_dir(case_dir: Path, max_entries: int = 100_000) -> None:
    """Fail early on a directory that must not or cannot be given to a judge.

    A dataset root (it holds labels.jsonl, evidence/ or cases/) is refused: only
    ``cases/<id>/`` may be mounted. And since the sandbox runs as an unprivileged uid, files
    readable only by their host owner would look missing or broken to the judge, so they are
    refused too.

    Raises:
        SandboxError: `case_dir` is not a directory, looks like a dataset root, or names the
            first entry lacking world read (and, for directories, search) permission.
    """
    if not case_dir.is_dir():
        raise SandboxError(f"case package directory not found: {case_dir}")
    exposed = [name for name in _DATASET_ONLY if (case_dir / name).exists()]
    if exposed:
        raise SandboxError(f"{case_dir} holds {', '.join(exposed)}: that is a dataset root, "
                           "not a case package; give the sandbox cases/<id>/ only")
    seen = 0
    for current, dirs, files in os.walk(case_dir):
        for name in [*dirs, *files, ""]:
            path = Path(current) / name if name else Path(current)
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                continue
            needed = (stat.S_IROTH | stat.S_IXOTH) if stat.S_ISDIR(mode) else stat.S_IROTH
            if mode & needed != needed:
                raise SandboxError(f"{path} is not readable by the sandbox user; make the case "
                                   f"package world-readable (chmod -R o+rX {case_dir})")
            seen += 1
            if seen >= max_entries:
                return


def read_file_with(run: Run, path: str, *, max_bytes: int | None, default_limit: int,
                   as_run: str | None = None) -> bytes:
    """`Sandbox.read_file` over a sandbox's `run`: READ_FILE_SCRIPT on `as_run` (the path as
    the sandbox's commands see it; default `path`), errors named by `path`."""
    limit = max_bytes if max_bytes is not None else default_limit
    argv = ["sh", "-c", READ_FILE_SCRIPT, "jr-read", as_run or path, str(limit + 1)]
    out, err = CappedStream(limit + 2), CappedStream(4096)
    finished, code = run(argv, out, err, time.monotonic() + FILE_CALL_S)
    return read_file_result(path, finished, code, out.value(), err.text(), limit,
                            exact=max_bytes is None)


def list_files_with(run: Run, path: str, *, as_run: str | None = None) -> list[str]:
    """`Sandbox.list_files` over a sandbox's `run` (see `read_file_with`)."""
    out, err = CappedStream(64 << 20), CappedStream(4096)
    finished, code = run(list_files_argv(as_run or path), out, err,
                         time.monotonic() + FILE_CALL_S)
    return parse_file_list(path, finished, code, out.value(), err.text())
