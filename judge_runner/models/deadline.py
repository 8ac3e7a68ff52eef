"""The wall-clock deadline model calls must respect (a case's `max_wall_s`).

A judge sets the deadline of the case it is judging (`with deadline.until(t):`); clients read it
(`deadline.remaining()`) so that no attempt, retry wait or retry series outlives it: each
attempt's timeout is the smaller of the client's own timeout and the time left, waits between
attempts are cut to the time left, and no attempt starts once the deadline has passed (a
`DeadlineExceeded`, an ordinary ModelError, so the case ends as an error verdict). The deadline
lives in a context variable: each case runs in its own worker thread and sees only its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from judge_runner.models.base import ModelError

# Below this many seconds left, a new attempt is not started: it could not get an answer.
MIN_ATTEMPT_S = 0.5

_DEADLINE: ContextVar[float | None] = ContextVar("judge_runner_model_deadline", default=None)


class DeadlineExceeded(ModelError):
    """The case's wall budget ran out before or during a model call."""


@contextmanager
def until(when: float | None) -> Iterator[None]:
    """Calls in this block must end by `when` (a time.monotonic() value; None: no deadline)."""
    token = _DEADLINE.set(when)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the current deadline (may be negative), or None without one."""
    when = _DEADLINE.get()
    return None if when is None else when - time.monotonic()


def attempt_timeout(timeout_s: float) -> float:
    """The timeout of the next attempt: `timeout_s`, cut to the time left.

    Raises DeadlineExceeded when too little time is left to start an attempt.
    """
    left = remaining()
    if left is None:
        return timeout_s
    if left < MIN_ATTEMPT_S:
        raise DeadlineExceeded(f"wall budget exhausted: {max(left, 0):.1f}s left, no model call "
                               "started", attempts=0)
    return min(timeout_s, left)


def cut_wait(wait_s: float) -> float:
    """A wait between attempts, cut so that it ends before the deadline."""
    left = remaining()
    return wait_s if left is None else max(min(wait_s, left - MIN_ATTEMPT_S), 0.0)


def expired() -> bool:
    left = remaining()
    return left is not None and left < MIN_ATTEMPT_S
