"""The shell wrapper every sandboxed command runs under, in a container or on the host.

Why a wrapper and not just ``timeout``: ``timeout`` stops the command's process group when time
runs out, but a command that finishes normally can leave background children behind, and a
child that calls ``setsid`` leaves the group. The wrapper therefore

1. runs ``bash -c CMD`` under ``timeout -k GRACE T`` (TERM, then KILL, to the whole group),
   with a per-exec marker ``JR_EXEC_ID`` in the command's environment;
2. when ``timeout`` returns, KILLs the group again (``kill`` is a shell builtin, so this works
   even when a fork bomb has used up every pid) until no member is left;
3. kills what escaped the group:
   - in a container (``JR_KEEP_PIDS`` set: the init and the command server), commands run one
     at a time, so every other process still there is a leftover of this one: all are
     KILLed, with shell builtins only (no fork), whatever they did to their environment;
   - on a host, only processes whose environment still carries the marker (a command can
     unset it; the local sandbox is not isolation).

The wrapper's exit status is the command's (124 or 137 when ``timeout`` had to stop it).
"""

from __future__ import annotations

import time
import uuid
from typing import Protocol

from judge_runner.sandbox.base import ExecResult
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.output import CappedStream

# Container sweep: KILL every process except the kept ones and this shell, until none is left
# (zombies count until the init reaps them; bounded rounds). Processes of other uids (an
# operator's `docker exec` as root) cannot be signalled and are skipped.
KILL_ALL = r"""
keep=" $JR_KEEP_PIDS $$ "
n=0
while [ "$n" -lt 50 ]; do
  hit=0
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    case "$keep" in *" $p "*) continue ;; esac
    kill -KILL "$p" 2>/dev/null && hit=1
  done
  [ "$hit" = 0 ] && break
  n=$((n + 1))
done
"""

# Host sweep: $1 is the exec id. The bracket keeps grep from matching its own command line;
# -z/-x match whole NUL-separated environment entries.
KILL_MARKED = r"""
for f in $(grep -lzx "JR_EXEC_I[D]=$1" /proc/[0-9]*/environ 2>/dev/null); do
  p=${f#/proc/}; kill -KILL "${p%/environ}" 2>/dev/null
done
"""

SWEEP = (
    'if [ -n "${JR_KEEP_PIDS:-}" ]; then\n' + KILL_ALL + "else\n" + KILL_MARKED + "fi\n"
)

RUN = (
    r"""
t=$1; grace=$2; id=$3; cmd=$4
JR_EXEC_ID=$id timeout -k "$grace" "$t" bash -c "$cmd" </dev/null &
pid=$!
wait "$pid"; rc=$?
n=0
while kill -KILL -- "-$pid" 2>/dev/null && [ "$n" -lt 100 ]; do n=$((n + 1)); done
set -- "$id"
"""
    + SWEEP
    + "exit $rc\n"
)

# Seconds the host keeps waiting after the wrapper's own timeout should have fired, before it
# kills the command from outside (covers a wedged wrapper or a slow engine).
HOST_SLACK = 10.0

# timeout(1) exit statuses when it had to stop the command (TERM worked / KILL was needed).
TIMEOUT_STATUSES = (124, 137)


def new_exec_id() -> str:
    return uuid.uuid4().hex


def run_argv(cmd: str, timeout: float, grace: float, exec_id: str) -> list[str]:
    """argv that runs `cmd` under the wrapper (POSIX sh, bash and GNU coreutils required)."""
    return ["sh", "-c", RUN, "jr-exec", f"{timeout:.3f}", f"{grace:.3f}", exec_id, cmd]


def sweep_argv(exec_id: str) -> list[str]:
    """argv of the sweep alone, for when the host stops waiting for a wrapper."""
    return ["sh", "-c", SWEEP, "jr-sweep", exec_id]


def timed_out(exit_code: int | None, duration: float, timeout: float) -> bool:
    """Whether a wrapper status means the timeout fired (a command exiting 124 early does not)."""
    return exit_code in TIMEOUT_STATUSES and duration >= timeout * 0.98


class WrappedRun(Protocol):
    """Runs a wrapper argv in one sandbox kind, streaming its stdout and stderr into `out` and
    `err`; returns (finished, exit status). Unfinished means the host stopped waiting at
    `deadline` and made sure the command's processes are gone (see `sweep_argv`)."""

    def __call__(
        self, argv: list[str], out: CappedStream, err: CappedStream, deadline: float,
        exec_id: str,
    ) -> tuple[bool, int | None]: ...


def exec_wrapped(
    cmd: str, timeout: float | None, limits: SandboxLimits, run: WrappedRun
) -> ExecResult:
    """The ``exec`` every sandbox kind shares: `cmd` under the wrapper with `timeout` (default
    ``limits.exec_timeout``), stdout and stderr each capped at ``limits.output_cap``.

    The host waits until the wrapper's own timeout plus the kill grace plus `HOST_SLACK`. A
    command that times out (or that the host gave up on) has ``timed_out`` set and
    ``exit_code`` None; one killed otherwise keeps the shell's status (137 for SIGKILL).
    Whatever `run` raises (SandboxError for a broken sandbox) propagates."""
    limit = timeout if timeout is not None else limits.exec_timeout
    exec_id = new_exec_id()
    argv = run_argv(cmd, limit, limits.kill_grace, exec_id)
    out = CappedStream(limits.output_cap)
    err = CappedStream(limits.output_cap)
    started = time.monotonic()
    deadline = started + limit + limits.kill_grace + HOST_SLACK
    finished, exit_code = run(argv, out, err, deadline, exec_id)
    duration = time.monotonic() - started
    hit_timeout = not finished or timed_out(exit_code, duration, limit)
    return ExecResult(
        stdout=out.text(),
        stderr=err.text(),
        exit_code=None if hit_timeout else exit_code,
        timed_out=hit_timeout,
        truncated=out.truncated or err.truncated,
        duration=duration,
    )
