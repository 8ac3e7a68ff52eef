"""The shell wrapper every sandboxed command runs under, in a container or on the host.

Why a wrapper and not just ``timeout``: ``timeout`` stops the command's process group when time
runs out, but a command that finishes normally can leave background children behind, and a
child that calls ``setsid`` leaves the group. The wrapper therefore

1. runs ``bash -c CMD`` under ``timeout -k GRACE T`` (TERM, then KILL, to the whole group),
   with a per-exec marker ``JR_EXEC_ID`` in the command's environment only;
2. when ``timeout`` returns, KILLs the group again (``kill`` is a shell builtin, so this works
   even when a fork bomb has used up every pid) until no member is left;
3. KILLs every process whose environment still carries the marker (the ``setsid`` escapes).
   Listing /proc costs a fork of grep, so it is skipped when the process count (a shell glob,
   no fork) shows nothing beyond the processes expected anyway (``JR_BASELINE_PIDS``: in a
   container its init, ``sleep infinity`` and this wrapper).

The wrapper's exit status is the command's (124 or 137 when ``timeout`` had to stop it).
"""

from __future__ import annotations

import uuid

# Kill everything started by one exec; $1 is the exec id. Used after every exec and, alone,
# when the host gives up waiting. The bracket in the pattern keeps grep from matching its own
# command line; -z/-x match whole NUL-separated environment entries. A process caught between
# fork and exec may not show its environment for an instant, so in a container (where the
# expected process count JR_BASELINE_PIDS is known) the sweep repeats until only the expected
# processes are left (at most 5 rounds); on a host it makes one pass.
SWEEP = r"""
n=0
while :; do
  found=$(grep -lzx "JR_EXEC_I[D]=$1" /proc/[0-9]*/environ 2>/dev/null)
  for f in $found; do p=${f#/proc/}; kill -KILL "${p%/environ}" 2>/dev/null; done
  n=$((n + 1))
  [ "${JR_BASELINE_PIDS:--1}" -lt 0 ] && break
  set -- "$1" /proc/[0-9]*
  [ $(($# - 1)) -le "$JR_BASELINE_PIDS" ] && break
  [ "$n" -ge 5 ] && break
  [ -z "$found" ] && sleep 0.05
done
"""

RUN = (
    r"""
t=$1; grace=$2; id=$3; cmd=$4
JR_EXEC_ID=$id timeout -k "$grace" "$t" bash -c "$cmd" </dev/null &
pid=$!
wait "$pid"; rc=$?
n=0
while kill -KILL -- "-$pid" 2>/dev/null && [ "$n" -lt 100 ]; do n=$((n + 1)); done
set -- /proc/[0-9]*
if [ "$#" -gt "${JR_BASELINE_PIDS:--1}" ]; then
  set -- "$id"
"""
    + SWEEP
    + "fi\nexit $rc\n"
)

# timeout(1) exit statuses when it had to stop the command (TERM worked / KILL was needed).
TIMEOUT_STATUSES = (124, 137)


def new_exec_id() -> str:
    return uuid.uuid4().hex


def run_argv(cmd: str, timeout: float, grace: float, exec_id: str) -> list[str]:
    """argv that runs `cmd` under the wrapper (POSIX sh, bash and GNU coreutils required)."""
    return ["sh", "-c", RUN, "jr-exec", f"{timeout:.3f}", f"{grace:.3f}", exec_id, cmd]


def sweep_argv(exec_id: str) -> list[str]:
    return ["sh", "-c", SWEEP, "jr-sweep", exec_id]


def timed_out(exit_code: int | None, duration: float, timeout: float) -> bool:
    """Whether a wrapper status means the timeout fired (a command exiting 124 early does not)."""
    return exit_code in TIMEOUT_STATUSES and duration >= timeout * 0.98
