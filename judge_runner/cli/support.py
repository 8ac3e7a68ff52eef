"""Helpers shared by the stage command modules (kept light: every CLI call imports it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from judge_runner.untrusted import terminal_safe

if TYPE_CHECKING:
    from judge_runner.cases import Dataset

JUDGED_KEPT = "verdicts judged so far are kept in"
JUDGE_THE_REST = "judge the rest"


def fail(message: str) -> typer.Exit:
    """Print `error: <message>` to stderr ("error:" in red on a terminal) and return the exit-2
    exception for the caller to raise: `raise fail(f"{path}: not a dataset") from exc`."""
    typer.secho("error:", fg=typer.colors.RED, err=True, nl=False)
    typer.echo(f" {message}", err=True)
    return typer.Exit(2)


@contextmanager
def interrupts_reported(kept_in: str, kept: str = JUDGED_KEPT,
                        rest: str = JUDGE_THE_REST) -> Iterator[None]:
    """End a long command (eval, verdicts, experiment run, evolve) stopped by Ctrl-C or
    SIGTERM/SIGHUP with what it kept, the same way for all: the exit status is 128 + the signal
    number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a process that
    signal ended."""
    from judge_runner import cancel

    try:
        yield
    except KeyboardInterrupt:
        raise _interrupted(kept_in, "Ctrl-C", 130, kept, rest) from None
    except cancel.Terminated as exc:
        raise _interrupted(kept_in, signal.Signals(exc.signum).name, 128 + exc.signum, kept,
                           rest) from None


def _interrupted(kept_in: str, cause: str, status: int, kept: str, rest: str) -> typer.Exit:
    typer.echo(f"interrupted ({cause}): {kept} {kept_in}; run the same command again to {rest}",
               err=True)
    return typer.Exit(status)


def require_complete(dataset: Dataset) -> None:
    """End the command (exit 2) on a dataset whose import did not finish: judging or splitting
    part of a dataset would give figures that look complete and are not."""
    reason = dataset.incomplete()
    if reason is not None:
        raise fail(reason)


def not_a_dataset(path: Path, dataset: Dataset) -> str:
    """Why `path` is no dataset, with the fix: a folder of Harbor trials is imported first, an
    import that stopped before its first case is run again."""
    if not path.exists():
        return f"{path}: no such dataset folder (a dataset is what `judge-runner import` writes)"
    partial = dataset.incomplete()
    if partial is not None:
        return partial
    if next(path.rglob("result.json"), None) is not None:
        return (f"{path} holds Harbor trials, not a dataset: import them first with "
                f"`judge-runner import {path} --tasks DIR --out DATASET` (or judge them with "
                "`judge-runner verdicts`)")
    return (f"{path} is not a dataset: {dataset.cases_dir} does not exist (a dataset is what "
            "`judge-runner import` writes)")


def io_failure(exc: Exception, doing: str, resume: str) -> typer.Exit:
    """One line for a write that the disk refused (full, read-only, ...) or a store that could
    not be written (sqlite says "database or disk is full"): what stopped, why, and how to go on.
    """
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
    return fail(f"{doing} stopped: {why}{where}; {resume}")


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print text that may hold a run's content (messages, outputs, names, paths): escape
    sequences and other control characters are shown escaped instead of reaching the terminal
    (see `judge_runner.untrusted.terminal_safe`)."""
    typer.echo(terminal_safe(text), err=err, nl=nl)


def shown(text: object) -> str:
    """A run's string for a rich renderable: controls escaped, rich markup escaped."""
    from rich.markup import escape

    return escape(terminal_safe(str(text)))
