"""The `judge-runner` entry point registers every stage's commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import typer
from typer.core import TyperGroup

from judge_runner.cli import app

COMMANDS = {"schema", "import", "validate", "show", "judge", "eval", "compare", "verdicts",
            "select", "calibrate", "view", "sandbox", "skills", "bench", "evolve", "harbor",
            "checklist", "experiment"}


def test_every_stage_is_registered() -> None:
    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    assert set(command.commands) == COMMANDS


def test_the_cli_starts_without_the_model_sdks() -> None:
    # Every command (and --help) imports the CLI; the SDKs are loaded only when a client is made.
    code = "import sys, judge_runner.cli.root; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert not {"anthropic", "openai"} & set(done.stdout.split())
    assert not {"numpy", "scipy"} & set(done.stdout.split())  # only calibration needs them


def _help(*command: str) -> str:
    done = subprocess.run([sys.executable, "-m", "judge_runner", *command, "--help"],
                          capture_output=True, text=True, check=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80", "TERM": "dumb"})
    return done.stdout


def test_help_wraps_instead_of_cutting_and_shows_flags_as_flags() -> None:
    text = _help("eval")
    assert "…" not in text and "package.module:factory" in text
    assert "<bool>" not in text
    assert re.search(r"--allow-abstain\s+Let the judge abstain", text), text


def test_evolve_usage_shows_its_subcommand_as_optional() -> None:
    assert "evolve [OPTIONS] [report RUN_DIR]\n" in _help("evolve").splitlines(keepends=True)[0]
