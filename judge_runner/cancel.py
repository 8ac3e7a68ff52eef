"""Cooperative cancellation of a run's in-flight cases (Ctrl-C, SIGTERM).

The runner owns one `threading.Event` per run and makes it current in each worker thread with
`scope`. Long-running code polls it only where stopping is safe and cheap: the agent judge
between turns and between tool calls, the model client before each attempt and while it waits
to retry. Cancelled work raises `Cancelled`; the runner turns that into an ERROR verdict whose
reason is `CANCELLED` and never stores it, so the next run judges the case again.

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
