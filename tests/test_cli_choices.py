"""Wrong choices end a command when its arguments are parsed (exit 2, nothing judged), with a
message naming the valid choices or the option the judge does not use."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from tests.conftest import REPO

SKILL = REPO / "judgeskills" / "v2"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    # unwrap the rich error box: its side borders fall inside wrapped sentences
    return result.exit_code, " ".join(result.output.replace("│", " ").split())


def test_a_misspelt_sandbox_names_the_choices(tmp_path: Path) -> None:
    code, out = _run("eval", str(tmp_path), "--judge", "agent", "--sandbox", "dokcer")
    assert code == 2
    assert "unknown sandbox kind 'dokcer'" in out and "auto, docker, local, none" in out


def test_the_harbor_kind_is_not_a_command_line_choice(tmp_path: Path) -> None:
    code, out = _run("judge", str(tmp_path), "--judge", "agent", "--sandbox", "harbor")
    assert code == 2 and "Harbor's agent opens its own" in out


def test_evolve_refuses_a_judge_that_takes_no_skill(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = _run("evolve", "--judge", "direct", "--skill", str(SKILL), "--dev",
                     str(tmp_path / "dev.txt"), "--run-dir", str(run_dir), "--judge-model", "m")
    assert code == 2 and "the direct judge does not use --skill" in out
    assert not run_dir.exists()  # refused before any state was written


def test_an_option_the_judge_does_not_use_is_refused(tmp_path: Path) -> None:
    (tmp_path / "case.json").write_text("{}")
    code, out = _run("judge", str(tmp_path), "--judge", "rules", "--model", "m")
    assert code == 2 and "the rules judge does not use --model" in out


def test_an_unknown_optimizer_is_refused(tmp_path: Path) -> None:
    code, out = _run("evolve", "--judge", "rules", "--optimizer", "genetic", "--skill",
                     str(SKILL), "--dev", str(tmp_path), "--run-dir", str(tmp_path / "r"))
    assert code == 2 and "'model'" in out and "'rules'" in out
