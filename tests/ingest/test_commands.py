"""The real `judge-runner` CLI on the bundled examples: import, validate, show."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from judge_runner.cases.validate import ValidationLimits
from judge_runner.cli import ingest as commands
from tests.conftest import EXAMPLES, REPO

JR = [str(Path(sys.executable).parent / "judge-runner")]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JR, *args], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_import_validate_show(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    done = _run("import", str(EXAMPLES / "trials"), "--tasks", str(EXAMPLES / "tasks"),
                "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "imported 12, skipped 0, failed 0" in done.stderr
    valid = _run("validate", str(out))
    assert valid.returncode == 0 and "ok: 12 case(s) valid" in valid.stdout
    case = next(p for p in sorted((out / "cases").iterdir()) if p.name.startswith("ssh-"))
    shown = _run("show", str(case))
    assert shown.returncode == 0, shown.stderr
    for expected in ("instruction", "auth-log-analysis", "trajectory", "artifacts"):
        assert expected in shown.stdout


def test_failures_set_the_exit_code(tmp_path: Path) -> None:
    (tmp_path / "t" / "agent").mkdir(parents=True)
    (tmp_path / "t" / "agent" / "claude-code.txt").write_text("hello\n")
    done = _run("import", str(tmp_path / "t"), "--tasks", str(EXAMPLES / "tasks"),
                "--out", str(tmp_path / "out"))
    assert done.returncode == 1 and "missing result.json" in done.stderr
    bad = _run("validate", str(tmp_path / "missing"))
    assert bad.returncode == 2
    assert bad.stderr == (f"error: {tmp_path / 'missing'}: no such dataset folder (a dataset "
                          "is what `judge-runner import` writes)\n"), bad.stderr
    unshown = _run("show", str(tmp_path / "missing"))
    assert unshown.returncode == 2
    assert unshown.stderr.startswith(f"error: cannot show {tmp_path / 'missing'}:"), unshown.stderr


def _imported_by(module: str) -> set[str]:
    """Modules a fresh interpreter holds after importing `module`."""
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    return set(done.stdout.split())


def test_the_commands_module_imports_no_implementation() -> None:
    loaded = _imported_by("judge_runner.cli.ingest")
    heavy = {"pydantic", "structlog", "rich.progress", "judge_runner.cases",
             "judge_runner.ingest.importer", "judge_runner.ingest.show"}
    assert not heavy & loaded


def test_option_defaults_are_the_validator_defaults() -> None:
    limits = ValidationLimits()
    defaults = {name: p.default
                for name, p in inspect.signature(commands.validate_command).parameters.items()}
    assert defaults["max_steps"] == limits.max_steps
    assert defaults["max_tokens"] == limits.max_trajectory_tokens
    assert defaults["max_field_chars"] == limits.max_field_chars
