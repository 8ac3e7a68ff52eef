"""Cooperative cancellation of a run's in-flight cases (Ctrl-C, SIGTERM, SIGHUP).

The runner owns one `threading.Event` per run, makes it current in each worker thread with
`scope` and registers it with `active` while cases are being judged, so that a termination
signal handler can cancel every run of the process at once (`cancel_active`) before anything
else happens (the sandbox's handler does, then removes its containers and raises
`Terminated`). Long-running code polls it only where stopping is safe and cheap: the agent judge
between turns and between tool calls, the model client before each attempt and while it waits
to retry. Cancelled work raises `Cancelled`; the runner turns that into an ERROR verdict whose
reason is `CANCELLED` and never stores it, so the next run judges the case again.

An ERROR a case ends with once its run is cancelled is treated as a cancellation too (not
stored): it is most likely the cancellation's own doing (its sandbox removed under it), and says
nothing about the case.

Nothing here changes the `Judge` Protocol: a judge that never polls still works, it just runs
its case to the end before the run can stop. Code running outside any scope (a judge called
directly, a test) is never cancelled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

CANCELLED = "cancelled"  # the error reason of a verdict cut short by cancellation

_current: ContextVar[threading.Event | None] = ContextVar("judge_runner_cancel", default=None)
_active: set[threading.Event] = set()
# Re-entrant: a signal handler calling cancel_active runs on the main thread, which may hold it.
_active_lock = threading.RLock()


class Terminated(SystemExit):
    """The process got a termination signal (SIGTERM, SIGHUP) and is unwinding.

    A SystemExit, so a program that does not catch it still exits (with status 128 + the
    signal number, as a shell reports a process killed by that signal); the CLI catches it
    around a run to print where the kept verdicts are, like it does for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


class Cancelled(Exception):
    """The current run was cancelled; raised at the next safe point of the work in progress."""

    def __init__(self) -> None:
        super().__init__(CANCELLED)


@contextmanager
def scope(event: threading.Event) -> Iterator[None]:
    """Make `event` the cancellation signal of the code run in this block (this thread)."""
    token = _current.set(event)
    try:
        yield
    finally:
        _current.reset(token)


def requested() -> bool:
    event = _current.get()
    return event is not None and event.is_set()


def check() -> None:
    """Raise Cancelled if the current scope has been cancelled."""
    if requested():
        raise Cancelled()


def sleep(seconds: float) -> None:
    """Sleep like `time.sleep`, but raise Cancelled as soon as the current scope is cancelled."""
    event = _current.get()
    if event is None:
        time.sleep(seconds)
    elif event.wait(seconds):
        raise Cancelled()


@contextmanager
def active(event: threading.Event) -> Iterator[None]:
    """Register `event` as the signal of a run in progress, for `cancel_active`."""
    with _active_lock:
        _active.add(event)
    try:
        yield
    finally:
        with _active_lock:
            _active.discard(event)


def cancel_active() -> None:
    """Cancel every run in progress in this process (safe to call from a signal handler: it
    only sets events)."""
    with _active_lock:
        events = list(_active)
    for event in events:
        event.set()
