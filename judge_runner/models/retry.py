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
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import anthropic
from pydantic import BaseModel, ConfigDict, Field

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


def is_retryable(err: BaseException) -> bool:
    if isinstance(err, anthropic.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(err, anthropic.APIStatusError) and err.status_code in RETRYABLE_STATUS


def retry_after_s(err: BaseException, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `retry-after`; else None."""
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
