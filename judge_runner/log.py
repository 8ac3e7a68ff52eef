"""Logging setup: structlog, human console output by default, JSON lines with --log-json."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TextIO

import structlog


class _CurrentStderr:
    """Writes to whatever `sys.stderr` is at write time, not at configure time: a CLI run under
    a test runner swaps stderr for a stream that is closed when the run ends."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def configure(json_output: bool = False, level: str = "info", file: Path | None = None) -> None:
    """Configure structlog once per process. Logs go to stderr (or `file`), never to stdout."""
    stream: TextIO = (
        file.open("a", encoding="utf-8") if file is not None else _CurrentStderr()  # type: ignore[assignment]
    )
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(sort_keys=True)
        if json_output or file is not None
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    return structlog.get_logger(name)  # type: ignore[no-any-return]
