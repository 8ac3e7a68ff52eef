"""A Sandbox over a Harbor environment, so the agent judge runs its tools in a Harbor trial.

Harbor's environment API is async and lives on Harbor's event loop; the agent judge is
synchronous and runs in a worker thread. `HarborSandbox` bridges the two: each call is submitted
to the loop and waited for from the worker thread (never call it from the loop's own thread).

Every command runs as the judge image's non-root user under the same shell wrapper as the Docker
sandbox (timeout that kills the whole process tree, sweep of escaped children), and its output
is capped with a marker. Harbor returns stdout and stderr of an exec merged into one stream, so
`ExecResult.stderr` is always empty here. Files are read base64-encoded, so binary files arrive
intact through Harbor's text-only exec.

The Harbor agent judges inside `trial_environment(environment, loop)`; there the registered
``harbor`` sandbox kind opens a `HarborSandbox` on that trial's environment.

Failure: a Harbor call that raises (container gone, engine error, Harbor's own timeout) becomes
`SandboxError`; the agent judge then ends the case as an error.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import math
import shlex
import time
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from judge_runner.harbor.layout import CASE_DIR, JUDGE_USER
from judge_runner.sandbox import (
    READ_FILE_SCRIPT,
    CappedStream,
    ClosedOnExit,
    ExecResult,
    SandboxError,
    SandboxKind,
    SandboxLimits,
    SandboxRequest,
    exec_wrapped,
    list_files_argv,
    parse_file_list,
    read_file_result,
    sandbox_kind,
    sweep_argv,
)

T = TypeVar("T")

# Seconds Harbor may take beyond a call's budget (for exec: the wrapper's timeout, the kill
# grace and `wrapper.HOST_SLACK`) before the host gives up on it; Harbor's own exec timeout
# fires at half of it. A hang guard only: the wrapper's timeout inside the container is what
# bounds a command, while every call also pays a `docker compose exec` start, which takes tens
# of seconds on a loaded machine.
HOST_SLACK = 120.0


class HarborExecResult(Protocol):
    stdout: str | None
    stderr: str | None
    return_code: int


class HarborEnvironment(Protocol):
    """The part of `harbor.environments.base.BaseEnvironment` this sandbox uses."""

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> HarborExecResult: ...


class HarborSandbox(ClosedOnExit):
    """Sandbox Protocol over a Harbor environment; see the module docstring.

    environment: the trial's environment. loop: the event loop it belongs to.
    limits: exec timeout, kill grace, output cap and read limit (other knobs are the
    environment's own: Harbor sets CPU, memory and network from task.toml).
    user: who runs the commands (default the judge image's non-root user).

    ``isolated`` is True: the commands run in the trial's own container, which holds this case
    and no label, apart from the host and other cases; its network is what the export chose
    (none unless exported with ``--network open``).
    """

    kind = SandboxKind.HARBOR
    isolated = True

    def __init__(
        self,
        environment: HarborEnvironment,
        loop: asyncio.AbstractEventLoop,
        limits: SandboxLimits | None = None,
        user: str = JUDGE_USER,
    ) -> None:
        self._env = environment
        self._loop = loop
        self.limits = limits or SandboxLimits()
        self._user = user

    def _call(self, coro: Coroutine[Any, Any, T], wait_s: float) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout=wait_s)
        except TimeoutError:
            future.cancel()
            raise SandboxError(f"the Harbor environment did not answer in {wait_s:.0f}s") from None
        except Exception as exc:
            raise SandboxError(f"Harbor environment call failed: {exc}") from exc

    def _run(self, argv: list[str], budget_s: float) -> HarborExecResult:
        return self._call(
            self._env.exec(shlex.join(argv), timeout_sec=math.ceil(budget_s + HOST_SLACK / 2),
                           user=self._user),
            budget_s + HOST_SLACK,
        )

    def exec(self, cmd: str, timeout: float | None = None) -> ExecResult:
        """Same contract as `DockerSandbox.exec` (`wrapper.exec_wrapped`); stderr arrives
        merged into stdout."""
        return exec_wrapped(cmd, timeout, self.limits, self._run_wrapped)

    def _run_wrapped(
        self, argv: list[str], out: CappedStream, err: CappedStream, deadline: float,
        exec_id: str,
    ) -> tuple[bool, int | None]:
        try:
            result = self._run(argv, deadline - time.monotonic())
        except SandboxError:
            # The host gave up; make sure nothing of this command keeps running inside.
            self._best_effort_sweep(exec_id)
            raise
        out.feed((result.stdout or "").encode("utf-8", errors="replace"))
        return True, result.return_code

    def _best_effort_sweep(self, exec_id: str) -> None:
        # The environment is already failing; the original error is what matters.
        with contextlib.suppress(SandboxError):
            self._run(sweep_argv(exec_id), 10.0)

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes:
        limit = max_bytes if max_bytes is not None else self.limits.max_read_bytes
        # The read script's exit code survives the pipe thanks to pipefail.
        script = f"set -o pipefail; {{ {READ_FILE_SCRIPT} }} | base64 -w0"
        argv = ["bash", "-c", script, "jr-read", path, str(limit + 1)]
        result = self._run(argv, 60.0)
        text = result.stdout or ""
        try:
            data = base64.b64decode(text, validate=True) if result.return_code == 0 else b""
        except ValueError:
            raise SandboxError(f"reading {path}: undecodable output") from None
        return read_file_result(path, True, result.return_code, data, text[-2000:], limit,
                                exact=max_bytes is None)

    def list_files(self, path: str = CASE_DIR) -> list[str]:
        # Harbor merges stderr into stdout: find's complaints must not become file names.
        result = self._run(list_files_argv(path, drop_stderr=True), 60.0)
        return parse_file_list(path, True, result.return_code,
                               (result.stdout or "").encode("utf-8", errors="replace"), "")

    def close(self) -> None:
        """Nothing to release: Harbor owns the environment and tears it down after the trial."""


_TRIAL: ContextVar[tuple[HarborEnvironment, asyncio.AbstractEventLoop] | None] = ContextVar(
    "harbor_trial", default=None)


@contextlib.contextmanager
def trial_environment(
    environment: HarborEnvironment, loop: asyncio.AbstractEventLoop
) -> Iterator[None]:
    """Within this block (and the threads `asyncio.to_thread` starts from it, which copy the
    context), the ``harbor`` sandbox kind opens on `environment`."""
    token = _TRIAL.set((environment, loop))
    try:
        yield
    finally:
        _TRIAL.reset(token)


@sandbox_kind(SandboxKind.HARBOR)
def open_harbor(request: SandboxRequest) -> HarborSandbox:
    """The current trial's container (the case is already in it: `request.case_dir` is the
    host copy the judge reads). SandboxError outside `trial_environment`."""
    trial = _TRIAL.get()
    if trial is None:
        raise SandboxError("a harbor sandbox opens only inside a Harbor trial "
                           "(judge_runner.harbor.agent)")
    return HarborSandbox(*trial, limits=request.limits)
