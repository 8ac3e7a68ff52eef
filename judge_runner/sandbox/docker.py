"""DockerSandbox: one locked-down container per case, kept for many commands, then removed.

The container is created once per case; its main process (under the engine's init, which
reaps orphans) is a small command server (see execd.py) reached through the container's
attached stdin/stdout, so a command costs one fork/exec inside the container instead of a
``docker exec`` or a container start. Isolation, all set at creation:

- the case package directory (``cases/<id>/`` and nothing above it) bind-mounted read-only at
  ``/case``; labels and verifier evidence live outside it and are never mounted;
- a read-only root filesystem; writable ``/scratch`` (also ``$HOME``) and ``/tmp`` are tmpfs
  of ``scratch_mb`` each, counted against the memory limit;
- ``network_mode=none`` (only a loopback interface with nothing listening);
- a non-root user (uid 10001), all capabilities dropped, ``no-new-privileges``;
- memory (swap included), CPU and pids limits from `SandboxLimits`;
- log driver ``none``: nothing the container prints is written to the host's disk.

The container is removed by ``close()``, which ``__exit__`` calls whatever the exception
(Ctrl-C included); an ``atexit`` hook and a SIGTERM/SIGHUP handler (see
`install_cleanup_hooks`) remove containers a process still holds when it exits or is
terminated. Only a SIGKILL'd process leaves a container behind: ``judge-runner sandbox
prune`` finds those by their labels.
"""

from __future__ import annotations

import atexit
import signal
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from judge_runner import cancel
from judge_runner.log import get_logger
from judge_runner.sandbox import engine, files, wrapper
from judge_runner.sandbox.base import (
    CASE_MOUNT,
    SCRATCH_DIR,
    ClosedOnExit,
    ExecResult,
    SandboxError,
    SandboxKind,
)
from judge_runner.sandbox.execd import SERVER_SOURCE, Channel
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.output import CappedStream
from judge_runner.sandbox.registry import SandboxRequest, sandbox_kind

log = get_logger(__name__)

SANDBOX_UID = "10001:10001"
_COMMAND_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": SCRATCH_DIR,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
# How long a fresh container may take until its command server answers.
_READY_TIMEOUT = 30.0
# Bound on each engine call made to remove a container, so that a starved engine cannot hold a
# closing (or terminating) process for long; what a timed-out removal leaves, `sandbox prune`
# removes.
CLEANUP_TIMEOUT = 15.0


class DockerSandbox(ClosedOnExit):
    """A running container for one case package. Use as a context manager.

    Args:
        case_dir: the case package directory (``<dataset>/cases/<id>``); mounted read-only.
        limits: resource limits (defaults: `SandboxLimits()`).
        image: judge image (default ``$JUDGE_RUNNER_SANDBOX_IMAGE`` or
            ``judge-runner-judge:latest``, built by ``scripts/build-images``).
        labels: extra container labels (e.g. a run id), added to the ownership labels.

    Raises:
        SandboxError: no engine answers, the image is missing, the case directory is missing
            or not readable by the sandbox user, or the container does not start.
    """

    kind = SandboxKind.DOCKER
    isolated = True

    def __init__(
        self,
        case_dir: Path,
        limits: SandboxLimits | None = None,
        image: str | None = None,
        labels: dict[str, str] | None = None,
    ) -> None:
        self.case_dir = Path(case_dir).resolve()
        self.limits = limits or SandboxLimits()
        self.image = image or engine.default_image()
        self._closed = False
        self._container_id: str | None = None
        self._channel: Channel | None = None
        self._env = dict(_COMMAND_ENV)
        self._lock = threading.Lock()
        files.check_case_dir(self.case_dir)
        self._client = engine.connect()
        self._api = self._client.api
        self.name = f"jr-{_slug(self.case_dir.name)}-{uuid.uuid4().hex[:10]}"
        try:
            self.image_id = self._image_id()
            self._container_id = self._start(labels or {})
        except BaseException:
            # Ctrl-C or an engine error mid-creation: the container may exist under its name.
            if self._channel is not None:
                self._channel.close()
            self._remove(self.name)
            self._client.close()
            raise
        _register(self)
        log.debug("sandbox.created", container=self.name, case=str(self.case_dir))

    @property
    def container_id(self) -> str:
        if self._container_id is None or self._closed:
            raise SandboxError(f"sandbox for {self.case_dir} is closed")
        return self._container_id

    # -- lifecycle -------------------------------------------------------------------------

    def _image_id(self) -> str:
        docker_errors = engine.errors()
        try:
            return str(self._api.inspect_image(self.image)["Id"])
        except docker_errors.ImageNotFound as exc:
            raise SandboxError(f"sandbox image {self.image!r} not found; build it with "
                               "scripts/build-images") from exc
        except docker_errors.DockerException as exc:
            raise SandboxError(f"cannot inspect sandbox image {self.image!r}: {exc}") from exc

    def _start(self, extra_labels: dict[str, str]) -> str:
        docker_errors = engine.errors()
        lim = self.limits
        memory = f"{lim.memory_mb}m"
        tmpfs_opts = f"rw,nosuid,nodev,size={lim.scratch_mb}m,mode=0700,uid=10001,gid=10001"
        labels = {
            **extra_labels,
            **engine.owner_labels(),
            engine.LABEL_CASE: self.case_dir.name,
            engine.LABEL_CREATED: datetime.now(UTC).isoformat(timespec="seconds"),
        }
        host_config = self._api.create_host_config(
            binds={str(self.case_dir): {"bind": CASE_MOUNT, "mode": "ro"}},
            tmpfs={SCRATCH_DIR: tmpfs_opts, "/tmp": tmpfs_opts},
            network_mode="none",
            read_only=True,
            init=True,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            mem_limit=memory,
            memswap_limit=memory,
            nano_cpus=int(lim.cpus * 1e9),
            pids_limit=lim.pids,
            ipc_mode="private",
            # No log driver: the command server's output reaches us over the attach stream
            # only. The default json-file driver would keep every frame on the host's disk
            # (one JSON record per line: ~30x the output) until the container is removed.
            log_config=engine.sdk().types.LogConfig(type="none"),
        )
        try:
            created = self._api.create_container(
                self.image,
                command=["python3", "-c", SERVER_SOURCE],
                stdin_open=True,
                name=self.name,
                user=SANDBOX_UID,
                working_dir=CASE_MOUNT,
                hostname="sandbox",
                environment={"HOME": SCRATCH_DIR, "TMPDIR": "/tmp"},
                labels=labels,
                network_disabled=True,
                host_config=host_config,
            )
            container_id = str(created["Id"])
            # Attach before start so the server's ready frame cannot be missed.
            sock = self._api.attach_socket(
                container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            self._channel = Channel(sock, self.name)
            self._api.start(container_id)
        except docker_errors.DockerException as exc:
            raise SandboxError(f"cannot start a sandbox container for {self.case_dir}: "
                               f"{exc}") from exc
        server_pid = self._channel.wait_ready(time.monotonic() + _READY_TIMEOUT)
        # The wrapper's sweep kills every process but these (see wrapper.py).
        self._env = {**_COMMAND_ENV, "JR_KEEP_PIDS": f"1 {server_pid}"}
        return container_id

    def close(self) -> None:
        """Remove the container (idempotent). Failures are logged, never raised: by then the
        caller is usually unwinding from another error, and `sandbox prune` can finish the job."""
        if self._closed:
            return
        self._closed = True
        _unregister(self)
        self._api.timeout = CLEANUP_TIMEOUT
        # Container first: a thread waiting on the channel then sees it end and raises,
        # where closing our end first could leave it waiting until its deadline.
        self._remove(self._container_id or self.name)
        if self._channel is not None:
            self._channel.close()
        self._client.close()

    def _remove(self, ref: str) -> None:
        """Forced removal: the engine SIGKILLs whatever runs (no stop grace period) and deletes
        the container in one call."""
        docker_errors = engine.errors()
        try:
            self._api.remove_container(ref, force=True, v=True)
        except docker_errors.NotFound:
            return
        except Exception as exc:
            log.warning("sandbox.remove_failed", container=ref, error=str(exc))

    # -- commands --------------------------------------------------------------------------

    def exec(self, cmd: str, timeout: float | None = None) -> ExecResult:
        """Run `cmd` with bash in ``/case`` as the sandbox user (contract: `wrapper.exec_wrapped`).

        The whole process tree is killed at `timeout` (default ``limits.exec_timeout``) and
        anything it left running is killed when it ends.

        Raises:
            SandboxError: the container is gone or the engine failed — not a failing command.
        """
        return wrapper.exec_wrapped(cmd, timeout, self.limits, self._call)

    def _call(
        self, argv: list[str], out: CappedStream, err: CappedStream, deadline: float,
        exec_id: str | None = None,
    ) -> tuple[bool, int | None]:
        """Run argv through the command server; (finished, exit code).

        When `deadline` passes (the in-container timeout should long have fired), the
        command's processes are killed through the engine (a ``docker exec`` of the sweep) and
        the server gets a few more seconds to report; a server that still does not answer
        means a broken sandbox.

        Raises:
            SandboxError: the sandbox is closed, or its container or server is gone."""
        with self._lock:
            if self._channel is None or self._closed:
                raise SandboxError(f"sandbox for {self.case_dir} is closed")
            self._channel.send(argv, self._env, CASE_MOUNT)
            finished, code = self._channel.collect(out, err, deadline)
            if finished:
                return True, code
            if exec_id is not None:
                try:
                    self._engine_exec(wrapper.sweep_argv(exec_id), time.monotonic() + 30)
                except SandboxError as exc:  # e.g. no pid left for the exec; wait anyway
                    log.warning("sandbox.rescue_failed", container=self.name, error=str(exc))
            finished, code = self._channel.collect(out, err, time.monotonic() + wrapper.HOST_SLACK)
            if not finished:
                self._channel.close()
                self._channel = None
                raise SandboxError(f"sandbox {self.name}: command server stopped answering")
            return False, None

    def _engine_exec(self, argv: list[str], deadline: float) -> None:
        """Run argv with a ``docker exec`` (bypassing the server), discarding its output."""
        docker_errors = engine.errors()
        try:
            created = self._api.exec_create(
                self.container_id, argv, stdout=True, stderr=True, stdin=False, tty=False,
                user=SANDBOX_UID, workdir=CASE_MOUNT, environment=self._env,
            )
            raw = self._api.exec_start(created["Id"], socket=True)
        except docker_errors.DockerException as exc:
            raise SandboxError(f"exec failed in sandbox {self.name}: {exc}") from exc
        sock = getattr(raw, "_sock", raw)
        try:
            _drain(sock, deadline)
        finally:
            raw.close()
            sock.close()

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes:
        """Bytes of a regular file inside the sandbox (symlinks resolved *inside* it).

        Returns at most `max_bytes` bytes when given. Without it, a file larger than
        ``limits.max_read_bytes`` raises SandboxError rather than filling host memory.

        Raises:
            FileNotFoundError / IsADirectoryError / PermissionError: as for a local open().
        """
        return files.read_file_with(self._call, path, max_bytes=max_bytes,
                                    default_limit=self.limits.max_read_bytes)

    def list_files(self, path: str = CASE_MOUNT) -> list[str]:
        """Absolute paths of the files (not directories) under `path`, sorted.

        Raises:
            FileNotFoundError: `path` does not exist in the sandbox.
        """
        return files.list_files_with(self._call, path)


def _drain(sock: Any, deadline: float) -> None:
    """Read the engine's exec stream until it ends or `deadline` passes. The output is not
    wanted (the sweep prints nothing useful), so its frames need no splitting."""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(1 << 16):
                return
        except TimeoutError:
            return


def _slug(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_.-" else "-" for c in name)
    return cleaned.strip("-.")[:40] or "case"


# -- cleanup when the process ends --------------------------------------------------------

_LIVE: dict[int, DockerSandbox] = {}
# Re-entrant: the signal handler runs on the main thread, possibly while it holds this lock.
_LIVE_LOCK = threading.RLock()
_HOOKS_LOCK = threading.Lock()
_atexit_registered = False
_signals_handled = False
_warned_off_main = False


def _register(box: DockerSandbox) -> None:
    with _LIVE_LOCK:
        _LIVE[id(box)] = box
    install_cleanup_hooks()
    if not _signals_handled:
        _warn_no_signal_cleanup()


def _unregister(box: DockerSandbox) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(id(box), None)


def close_all() -> None:
    """Remove every container this process still holds, all at once (one thread each), and
    return within about `CLEANUP_TIMEOUT` however slow the engine is."""
    with _LIVE_LOCK:
        boxes = list(_LIVE.values())
    if len(boxes) == 1:
        boxes[0].close()
        return
    closers = [threading.Thread(target=box.close, name=f"close-{box.name}", daemon=True)
               for box in boxes]
    for closer in closers:
        closer.start()
    deadline = time.monotonic() + CLEANUP_TIMEOUT + 5
    for closer in closers:
        closer.join(max(0.0, deadline - time.monotonic()))


def install_cleanup_hooks() -> None:
    """Make this process remove the containers it holds when it exits or gets SIGTERM/SIGHUP.

    Idempotent. The ``atexit`` hook is registered from any thread. Signal handlers can only be
    installed from the main thread (a Python rule), so a call from another thread registers the
    ``atexit`` hook only and a later main-thread call adds the handlers. `DockerSandbox` calls
    this itself; a program that opens sandboxes in worker threads (the runner's judges do)
    must call it once on its main thread first; the ``judge-runner`` CLI does. A signal that
    already has a handler of the application's is left alone.
    """
    global _atexit_registered, _signals_handled
    with _HOOKS_LOCK:
        if not _atexit_registered:
            atexit.register(close_all)
            _atexit_registered = True
        if _signals_handled or threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) is signal.SIG_DFL:
                signal.signal(sig, _exit_on_signal)
        _signals_handled = True


def _warn_no_signal_cleanup() -> None:
    global _warned_off_main
    if _warned_off_main:
        return
    _warned_off_main = True
    log.warning("sandbox.no_signal_cleanup",
                detail="a sandbox was opened off the main thread before install_cleanup_hooks() "
                       "ran there: a SIGTERM or SIGHUP would leave its container behind (remove "
                       "it with `judge-runner sandbox prune`)")


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    """Cancel the process's runs, remove the containers, then unwind with `cancel.Terminated`
    (a SystemExit, so `with` blocks and atexit still run; the CLI reports it like Ctrl-C).

    Cancelling first makes the cases whose sandbox is about to vanish end as cancelled (never
    stored) rather than as errors. Removing before unwinding matters: worker threads would
    otherwise go on until their next safe point, and a SIGKILL that often follows a SIGTERM
    would leave the containers."""
    cancel.cancel_active()
    close_all()
    raise cancel.Terminated(signum)


@sandbox_kind(SandboxKind.DOCKER)
def open_docker(request: SandboxRequest) -> DockerSandbox:
    return DockerSandbox(request.case_dir, limits=request.limits, image=request.image,
                         labels=request.labels)
