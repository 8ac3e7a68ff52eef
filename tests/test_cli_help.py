"""Every command's and group's `--help` at 80 columns (judge_runner/cli/help.py): usage lines
name arguments in capitals, flags read as flags, nothing is cut to "…" or "...", no line is
wider than the terminal."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.testing import CliRunner

from judge_runner.cli import app

COLUMNS = 80


Command = TyperCommand | TyperGroup


def _commands(command: Command, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], Command]]:
    yield path, command
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            assert isinstance(sub, TyperCommand | TyperGroup)
            yield from _commands(sub, (*path, name))


ROOT = typer.main.get_command(app)
assert isinstance(ROOT, TyperGroup)
COMMANDS = list(_commands(ROOT))


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(COLUMNS)})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_command_and_group_is_walked() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "eval", "import", "evolve", "evolve report", "bench build",
            "checklist analyze"} <= names
    assert len(names) > 30


@pytest.mark.parametrize(("path", "command"), COMMANDS,
                         ids=[" ".join(p) or "judge-runner" for p, _ in COMMANDS])
def test_help_reads_at_80_columns(path: tuple[str, ...], command: Command) -> None:
    text = _help(path)
    usage, _, body = text.partition("\n\n")
    assert usage.startswith(f"Usage: judge-runner {' '.join(path)}".rstrip()), usage
    assert "{" not in usage and "}" not in usage, usage
    assert "<bool>" not in text
    assert "…" not in text
    for line in body.splitlines():
        assert len(line) <= COLUMNS, line
        assert not line.rstrip().endswith("..."), f"cut: {line!r}"
    for param in command.params:
        if isinstance(param, TyperArgument):
            assert param.metavar is not None and param.metavar.isupper(), param.name
            assert re.search(rf"(^|[\s\[]){re.escape(param.metavar)}(\.\.\.)?\]?(\s|$)",
                             usage), (param.metavar, usage)
        elif isinstance(param, TyperOption) and param.is_flag and not param.hidden:
            names = " / ".join(filter(None, [", ".join(param.opts),
                                             ", ".join(param.secondary_opts)]))
            assert re.search(rf"^  {re.escape(names)}(\s{{2,}}|$)", body, re.MULTILINE), \
                (names, body)


def test_a_missing_argument_is_named_as_the_usage_names_it() -> None:
    result = CliRunner().invoke(app, ["eval"], env={"COLUMNS": str(COLUMNS)})
    assert result.exit_code == 2
    assert "Usage: judge-runner eval [OPTIONS] DATASET" in result.stderr
    assert "Missing argument 'DATASET'" in result.stderr


def test_optional_and_repeated_arguments_read_as_such() -> None:
    assert _help(("import",)).startswith("Usage: judge-runner import [OPTIONS] TRIALS...\n")
    assert _help(("evolve",)).startswith("Usage: judge-runner evolve [OPTIONS] "
                                         "[report RUN_DIR]\n")
