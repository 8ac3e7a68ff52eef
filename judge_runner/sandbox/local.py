"""LocalSandbox: for machines without Docker. Convenience, NOT isolation.

Commands run on this host as the current user, with the case package *copied* into a
temporary directory, a wall-clock timeout that kills the whole process tree (the same wrapper
as the Docker sandbox), resource limits (address space, CPU time, file size, processes) and the
same output caps. Nothing stops a command from reading other host files or using the network,
and as root the copy's read-only permissions are not enforced. It says so (``kind="local"``,
``isolated=False``, which judges copy into their verdicts' details) and `open_sandbox` warns
once per process.

So that judges can use the same paths everywhere, ``/case`` and ``/scratch`` in commands and
paths are rewritten to the copy and its scratch directory, and back again in outputs. The
rewrite is textual (a path built at run time, e.g. ``"/ca"+"se"``, is not translated).
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

from judge_runner.log import get_logger
from judge_runner.sandbox import files, wrapper
from judge_runner.sandbox.base import (
    CASE_MOUNT,
    SCRATCH_DIR,
    ClosedOnExit,
    ExecResult,
    SandboxError,
    SandboxKind,
)
from judge_runner.sandbox.execd import CANNOT_START
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.output import CappedStream
from judge_runner.sandbox.registry import SandboxRequest, sandbox_kind

log = get_logger(__name__)

# $1 address space (KiB), $2 CPU seconds, $3 file size (KiB; bash's unit outside POSIX mode),
# $4 processes; then the argv to run. Each ulimit sets the soft and the hard limit.
_RLIMITS = f"""
ulimit -v "$1" -t "$2" -f "$3" -u "$4" -c 0 || {{
  echo "sandbox: cannot set the resource limits" >&2; exit {CANNOT_START}; }}
shift 4
exec "$@"
"""


class LocalSandbox(ClosedOnExit):
    """A temporary copy of one case package plus a scratch directory. Use as a context manager.

    Args:
        case_dir: the case package directory (``<dataset>/cases/<id>``); copied, never written.
        limits: resource limits (defaults: `SandboxLimits()`); ``cpus`` is not enforced here.

    Raises:
        SandboxError: the case directory is missing or cannot be copied.
    """

    kind = SandboxKind.LOCAL
    isolated = False

    def __init__(self, case_dir: Path, limits: SandboxLimits | None = None) -> None:
        self.case_dir = Path(case_dir).resolve()
        self.limits = limits or SandboxLimits()
        files.check_case_dir(self.case_dir)
        self._root = Path(tempfile.mkdtemp(prefix="judge-runner-local-"))
        self._closed = False
        self.case_path = self._root / "case"
        self.scratch_path = self._root / "scratch"
        self._tmp_path = self._root / "tmp"
        try:
            self.skipped_links = _copy_package(self.case_dir, self.case_path)
            self.scratch_path.mkdir()
            self._tmp_path.mkdir()
            _make_read_only(self.case_path)
        except OSError as exc:
            self.close()
            raise SandboxError(f"cannot copy case package {self.case_dir}: {exc}") from exc
        self._to_host = [(CASE_MOUNT, str(self.case_path)), (SCRATCH_DIR, str(self.scratch_path))]

    def close(self) -> None:
        """Delete the copy and the scratch directory (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._root.exists():
            _make_writable(self._root)
        shutil.rmtree(self._root, ignore_errors=True)

    # -- path views ------------------------------------------------------------------------

    def _host_text(self, text: str) -> str:
        for view, host in self._to_host:
            text = re.sub(rf"(?<![\w./-]){re.escape(view)}(?![\w.-])", host, text)
        return text

    def _view_text(self, text: str) -> str:
        for view, host in self._to_host:
            text = text.replace(host, view)
        return text

    # -- commands --------------------------------------------------------------------------

    def exec(self, cmd: str, timeout: float | None = None) -> ExecResult:
        """Run `cmd` with bash in the case copy; same contract as `DockerSandbox.exec`."""
        result = wrapper.exec_wrapped(self._host_text(cmd), timeout, self.limits, self._run)
        return result.model_copy(update={"stdout": self._view_text(result.stdout),
                                         "stderr": self._view_text(result.stderr)})

    def _run(
        self, argv: list[str], out: CappedStream, err: CappedStream, deadline: float,
        exec_id: str | None = None,
    ) -> tuple[bool, int | None]:
        if self._closed:
            raise SandboxError(f"sandbox for {self.case_dir} is closed")
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(self.scratch_path),
            "TMPDIR": str(self._tmp_path),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        try:
            proc = subprocess.Popen(
                self._with_rlimits(argv), cwd=self.case_path, env=env,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:  # too long for argv, no process left: a failed command
            err.feed(f"sandbox: cannot start the command: {exc}\n".encode())
            return True, CANNOT_START
        assert proc.stdout is not None and proc.stderr is not None
        finished = _pump_pipes(proc.stdout, proc.stderr, out, err, deadline)
        if not finished:
            _kill_tree(proc.pid, exec_id)
        code = proc.wait()
        return finished, code

    def _with_rlimits(self, argv: list[str]) -> list[str]:
        """argv under a bash that sets the limits and execs it: everything it starts inherits
        them. A shell rather than ``preexec_fn``, which is unsafe in a threaded program (judges
        run in worker threads). Limits the host does not allow are a failed command (126)."""
        lim = self.limits
        values = (lim.memory_mb << 10, lim.cpu_seconds, lim.scratch_mb << 10, lim.pids)
        return ["bash", "-c", _RLIMITS, "jr-limits", *map(str, values), *argv]

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes:
        """Same contract as `DockerSandbox.read_file`; `path` uses the /case, /scratch view."""
        return files.read_file_with(self._run, path, max_bytes=max_bytes,
                                    default_limit=self.limits.max_read_bytes,
                                    as_run=self._host_text(path))

    def list_files(self, path: str = CASE_MOUNT) -> list[str]:
        """Same contract as `DockerSandbox.list_files`, with /case and /scratch paths."""
        names = files.list_files_with(self._run, path, as_run=self._host_text(path))
        return sorted(self._view_text(n) for n in names)


def _pump_pipes(
    stdout: IO[bytes], stderr: IO[bytes], out: CappedStream, err: CappedStream, deadline: float
) -> bool:
    """Read both pipes into their capped streams until both close or `deadline` passes."""
    with selectors.DefaultSelector() as sel:
        sel.register(stdout, selectors.EVENT_READ, out)
        sel.register(stderr, selectors.EVENT_READ, err)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in sel.select(timeout=left):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    key.data.feed(chunk)
                else:
                    sel.unregister(key.fileobj)
    stdout.close()
    stderr.close()
    return True


def _kill_tree(pid: int, exec_id: str | None) -> None:
    """The host gave up waiting: kill the wrapper's session, then the marker's stragglers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    if exec_id is not None:
        subprocess.run(wrapper.sweep_argv(exec_id), check=False, timeout=30)


def _copy_package(src: Path, dst: Path) -> list[str]:
    """Copy the package keeping symlinks that stay inside it; others are dropped (a link to
    ``../../labels.jsonl`` must not become readable). Returns the dropped links."""
    skipped: list[str] = []

    def ignore(directory: str, names: list[str]) -> set[str]:
        dropped = set()
        for name in names:
            path = Path(directory) / name
            if path.is_symlink() and not path.resolve().is_relative_to(src):
                dropped.add(name)
                skipped.append(str(path.relative_to(src)))
        return dropped

    shutil.copytree(src, dst, symlinks=True, ignore=ignore)
    if skipped:
        log.warning("sandbox.local.links_dropped", case=str(src), links=skipped)
    return skipped


def _make_read_only(root: Path) -> None:
    for current, _dirs, names in os.walk(root):
        for name in names:
            path = Path(current) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
        Path(current).chmod(Path(current).stat().st_mode & ~0o222)


def _make_writable(root: Path) -> None:
    for current, _dirs, names in os.walk(root):
        Path(current).chmod(Path(current).stat().st_mode | 0o700)
        for name in names:
            path = Path(current) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)


@sandbox_kind(SandboxKind.LOCAL)
def open_local(request: SandboxRequest) -> LocalSandbox:
    return LocalSandbox(request.case_dir, limits=request.limits)
