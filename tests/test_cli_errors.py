"""A newcomer's mistakes: each is one line on stderr, `error: ...`, exit 2, naming the wrong flag
or value and the fix, with no traceback and before any work (nothing is written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.casebuilder import dev_pool
from tests.conftest import EXAMPLES, REPO

SKILL = REPO / "judgeskills" / "v1"


def one_line(*args: str, env: dict[str, str | None] | None = None) -> str:
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output and "Invalid value for --judge" not in result.output
    return lines[0].removeprefix("error: ")


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    _, dev, gate = dev_pool(tmp_path, n_tasks=2, per_task=4, gate_fail=2, gate_pass=1)
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "dev.txt").write_text("\n".join(dev) + "\n")
    (folder / "gate.txt").write_text("\n".join(gate) + "\n")
    return folder


NO_KEY: dict[str, str | None] = {"ANTHROPIC_API_KEY": None, "ANTHROPIC_BASE_URL": None}


@pytest.mark.parametrize("judge", [
    ["--judge", "rules", "--optimizer", "model", "--optimizer-model", "claude-sonnet-4-6"],
    ["--judge", "agent", "--judge-model", "claude-sonnet-4-6", "--optimizer-model",
     "claude-opus-4-6"],
])
def test_evolve_without_a_key_is_one_line(tmp_path: Path, bench: Path, judge: list[str]) -> None:
    run_dir = tmp_path / "run"
    message = one_line("evolve", "--skill", str(SKILL), "--dev", str(bench / "dev.txt"),
                       "--gate", str(bench / "gate.txt"), "--dataset",
                       str(tmp_path / "dataset"), *judge, "--run-dir", str(run_dir), env=NO_KEY)
    assert "ANTHROPIC_API_KEY is not set" in message
    assert not run_dir.exists()


def test_evolve_without_its_required_flags_names_them() -> None:
    assert one_line("evolve", "--judge", "rules").startswith(
        "evolve needs --skill DIR, --dev BENCH_DIR, --run-dir DIR")


@pytest.mark.parametrize(("flags", "expected"), [
    (["--judge", "rulez"], "--judge rulez: unknown judge 'rulez'; known judges: agent,"),
    (["--judge", "rules", "--skill", "judgeskills/v3"],
     "--skill judgeskills/v3: does not exist (a JudgeSkill is a folder such as judgeskills/v1; "
     "judgeskills holds v1, v2"),
    (["--judge", "rules", "-o", "turns=3"], "-o turns: unknown option(s) for the rules judge"),
    (["--judge", "rules", "--sandbox", "docker"],
     "rules judge: bad option: --sandbox: the rules judge runs without a sandbox"),
    (["--judge", "direct", "--model", "claude-sonnet-4-6"], "ANTHROPIC_API_KEY is not set"),
])
def test_judge_option_mistakes_name_the_flag(
    tmp_path: Path, flags: list[str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    dataset, _, _ = dev_pool(tmp_path, n_tasks=1, per_task=2, gate_fail=1, gate_pass=0)
    run_dir = tmp_path / "run"
    message = one_line("eval", str(dataset), *flags, "--run-dir", str(run_dir), env=NO_KEY)
    assert message.startswith(expected), message
    assert not run_dir.exists()


@pytest.mark.parametrize("command", [["eval", "--judge", "rules"], ["validate"],
                                     ["bench", "build"]])
def test_raw_trials_given_as_a_dataset_suggest_import(command: list[str]) -> None:
    trials = EXAMPLES / "trials"
    message = one_line(command[0], *command[1:2], str(trials), *command[2:]) \
        if command[0] == "bench" else one_line(command[0], str(trials), *command[1:])
    assert message == (f"{trials} holds Harbor trials, not a dataset: import them first with "
                       f"`judge-runner import {trials} --tasks DIR --out DATASET` (or judge "
                       "them with `judge-runner verdicts`)")


@pytest.mark.parametrize("command", [["eval", "--judge", "rules"], ["validate"]])
def test_a_missing_dataset_is_worded_the_same_everywhere(tmp_path: Path,
                                                         command: list[str]) -> None:
    missing = tmp_path / "nope"
    assert one_line(command[0], str(missing), *command[1:]) == (
        f"{missing}: no such dataset folder (a dataset is what `judge-runner import` writes)")
