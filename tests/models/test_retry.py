"""Retry policy arithmetic and `retry-after` parsing."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from judge_runner.models import RetryPolicy
from judge_runner.models.retry import parse_retry_after


def test_backoff_doubles_and_is_capped_with_bounded_jitter() -> None:
    policy = RetryPolicy(initial_wait_s=1.0, max_wait_s=5.0, jitter_s=0.5)
    rng = random.Random(7)
    waits = [policy.backoff(n, rng) for n in range(1, 7)]
    bases = [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
    assert all(base <= w <= base + 0.5 for w, base in zip(waits, bases, strict=True))
    assert len({round(w - b, 6) for w, b in zip(waits, bases, strict=True)}) > 1  # jittered


@pytest.mark.parametrize(("headers", "expected"), [
    ({"retry-after": "3"}, 3.0),
    ({"retry-after": "1.5"}, 1.5),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the precise header wins
    ({"retry-after-ms": "junk", "retry-after": "2"}, 2.0),
    ({"retry-after": "-4"}, 0.0),
    ({"retry-after": "soon"}, None),
    ({}, None),
])
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    header = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": header}, now=now) == pytest.approx(30.0)


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
