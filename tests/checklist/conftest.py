"""Logging points at this test's stderr: a CLI run in an earlier test leaves structlog bound to
CliRunner's stream, which is closed once that run ends."""

from __future__ import annotations

import pytest

from judge_runner import log


@pytest.fixture(autouse=True)
def _fresh_logging() -> None:
    log.configure()
