"""When and how long to retry a failed model call.

Retried: HTTP 408, 429, 500, 502, 503, 504, 529, request timeouts and connection errors.
Everything else (400 bad request, 401/403 auth, 404, 413 too large, ...) fails at once: asking
again cannot help. Waits grow exponentially with random jitter (so parallel cases do not retry in
lockstep), capped by `max_wait_s`; a server's `retry-after` / `retry-after-ms` header replaces
the computed wait (capped by `max_retry_after_s`). After `max_attempts` attempts the call fails
for good and the caller gets a ModelError.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pydantic import BaseModel, ConfigDict, Field
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
)
from tenacity.stop import stop_base

from judge_runner import cancel
from judge_runner.models import deadline

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
# Jitter only spreads retries in time; it never reaches a verdict, so it needs no recorded seed.
_RNG = random.Random()


class RetryPolicy(BaseModel):
    """Bounds on retrying one call. Defaults suit a real API; tests shrink the waits.

    max_attempts: total attempts including the first (6 → up to 5 retries).
    initial_wait_s: wait before the first retry; doubles each retry.
    max_wait_s: cap on the computed (exponential) wait.
    jitter_s: a uniform random 0..jitter_s is added to each computed wait.
    max_retry_after_s: cap on a server-requested wait (`retry-after`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(default=6, ge=1)
    initial_wait_s: float = Field(default=2.0, ge=0)
    max_wait_s: float = Field(default=60.0, ge=0)
    jitter_s: float = Field(default=2.0, ge=0)
    max_retry_after_s: float = Field(default=120.0, ge=0)

    def backoff(self, retry_number: int, rng: random.Random | None = None) -> float:
        """Computed wait before retry `retry_number` (1-based), jitter included."""
        base = min(self.initial_wait_s * 2.0 ** (retry_number - 1), self.max_wait_s)
        jitter: float = (rng or _RNG).uniform(0, self.jitter_s)
        return base + jitter


# The SDK is imported where an error is classified, not with this module: RetryPolicy is a field
# of every model judge's options, and the SDK's import would otherwise cost each command's start.
def is_retryable(err: BaseException) -> bool:
    import anthropic

    if isinstance(err, anthropic.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(err, anthropic.APIStatusError) and err.status_code in RETRYABLE_STATUS


def retry_after_s(err: BaseException, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `retry-after`; else None."""
    import anthropic

    if not isinstance(err, anthropic.APIStatusError):
        return None
    return parse_retry_after(err.response.headers, now)


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:  # an HTTP date
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


class Attempts:
    """Runs one call's attempts with tenacity under a RetryPolicy and the current wall deadline.

    `send(timeout_s)` makes one attempt with that timeout (the client's own, cut to the time
    left before the deadline); errors for which `retryable(err)` holds are retried after
    `wait_for(err, attempt_number)` seconds (cut so it ends before the deadline), others
    propagate. `.made` is the number of attempts sent, also when the last one raised. Raises
    DeadlineExceeded (a ModelError) when the deadline leaves no time to start an attempt; a
    retryable error whose retry could not start before the deadline propagates as it is.
    """

    def __init__(self, policy: RetryPolicy, timeout_s: float,
                 retryable: Callable[[BaseException], bool],
                 wait_for: Callable[[BaseException, int], float],
                 on_retry: Callable[[RetryCallState], None]) -> None:
        self.policy = policy
        self.timeout_s = timeout_s
        self.retryable = retryable
        self.wait_for = wait_for
        self.on_retry = on_retry
        self.made = 0

    def _wait(self, state: RetryCallState) -> float:
        err = state.outcome.exception() if state.outcome is not None else None
        asked = self.wait_for(err, state.attempt_number) if err is not None else 0.0
        return deadline.cut_wait(asked)

    def run[T](self, send: Callable[[float], T]) -> T:
        retrying = Retrying(
            stop=stop_any(stop_after_attempt(self.policy.max_attempts), _DeadlinePassed()),
            wait=self._wait,
            retry=retry_if_exception(self.retryable),
            before_sleep=self.on_retry,
            reraise=True,
            sleep=cancel.sleep,  # a cancelled run does not sit out a long backoff
        )
        for attempt in retrying:
            with attempt:
                try:
                    timeout = deadline.attempt_timeout(self.timeout_s)
                except deadline.DeadlineExceeded as err:
                    err.attempts = self.made
                    raise
                self.made += 1
                return send(timeout)
        raise AssertionError("tenacity ended without an outcome")  # pragma: no cover


class _DeadlinePassed(stop_base):
    """Stop retrying once the current wall deadline leaves no time for another attempt."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        return deadline.expired()
