"""Helpers shared by the stage command modules (kept light: every CLI call imports it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import typer


def fail(message: str) -> typer.Exit:
    """Print `error: <message>` to stderr ("error:" in red on a terminal) and return the exit-2
    exception for the caller to raise: `raise fail(f"{path}: not a dataset") from exc`."""
    typer.secho("error:", fg=typer.colors.RED, err=True, nl=False)
    typer.echo(f" {message}", err=True)
    return typer.Exit(2)


@contextmanager
def interrupts_reported(kept_in: str) -> Iterator[None]:
    """End a judging command stopped by Ctrl-C or SIGTERM/SIGHUP with what it kept: the exit
    status is 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), as a
    shell reports a process that signal ended."""
    from judge_runner import cancel

    try:
        yield
    except KeyboardInterrupt:
        raise _interrupted(kept_in, "Ctrl-C", 130) from None
    except cancel.Terminated as exc:
        raise _interrupted(kept_in, signal.Signals(exc.signum).name, 128 + exc.signum) from None


def _interrupted(kept_in: str, cause: str, status: int) -> typer.Exit:
    typer.echo(f"interrupted ({cause}): verdicts judged so far are kept in {kept_in}; run the "
               "same command again to judge the rest", err=True)
    return typer.Exit(status)
