"""Helpers for model client tests: fast retry policies and a log file to inspect."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_runner import log
from judge_runner.models import RetryPolicy

# Same shape as production, waits in milliseconds.
FAST = RetryPolicy(max_attempts=4, initial_wait_s=0.001, max_wait_s=0.01, jitter_s=0.001,
                   max_retry_after_s=2.0)


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    """Route judge_runner logs to a file for the test, then back to stderr."""
    path = tmp_path / "log.jsonl"
    log.configure(file=path, level="debug")
    try:
        yield path
    finally:
        log.configure()
