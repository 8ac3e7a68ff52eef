"""The `judge-runner` entry point registers every stage's commands."""

from __future__ import annotations

import typer
from typer.core import TyperGroup

from judge_runner.cli import app

COMMANDS = {"schema", "import", "validate", "show", "judge", "eval", "compare", "verdicts",
            "select", "view", "sandbox", "skills", "bench", "evolve", "harbor", "checklist"}


def test_every_stage_is_registered() -> None:
    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    assert set(command.commands) == COMMANDS
