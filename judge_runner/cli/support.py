"""Helpers shared by the stage command modules (kept light: every CLI call imports it)."""

from __future__ import annotations

import typer


def fail(message: str) -> typer.Exit:
    """Print `error: <message>` to stderr ("error:" in red on a terminal) and return the exit-2
    exception for the caller to raise: `raise fail(f"{path}: not a dataset") from exc`."""
    typer.secho("error:", fg=typer.colors.RED, err=True, nl=False)
    typer.echo(f" {message}", err=True)
    return typer.Exit(2)
