"""Wrong import inputs are one line naming the value and the fix, before anything is written:
a mistyped trial path, a tree without trials, no --tasks, a --tasks that is not a task folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.ingest.inputs import InputError, check_inputs
from tests.conftest import EXAMPLES

TRIALS, TASKS = EXAMPLES / "trials", EXAMPLES / "tasks"


def _one_line_error(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize(("trials", "tasks", "expected"), [
    (EXAMPLES / "trial", [TASKS], f"{EXAMPLES / 'trial'}: no such file or folder (did you mean "
                                  f"{TRIALS}?)"),
    (Path("/nonexistent"), [TASKS], "/nonexistent: no such file or folder"),
    (TASKS, [TASKS], f"no Harbor trial found under {TASKS}"),
    (TRIALS, [], "no --tasks given: every case needs its task's instruction; pass --tasks DIR"),
    (TRIALS, [EXAMPLES / "task"], f"--tasks {EXAMPLES / 'task'}: does not exist (did you mean "
                                  f"{TASKS}?)"),
    (TRIALS, [TRIALS], f"--tasks {TRIALS}: holds no task folder with instruction.md"),
])
def test_import_refuses_wrong_inputs_before_writing(
    tmp_path: Path, trials: Path, tasks: list[Path], expected: str
) -> None:
    out = tmp_path / "pool"
    args = ["import", str(trials), "--out", str(out)]
    for folder in tasks:
        args += ["--tasks", str(folder)]
    assert _one_line_error(*args).startswith(f"error: {expected}")
    assert not out.exists()  # nothing written, not even an empty labels.jsonl
    with pytest.raises(InputError):
        check_inputs([trials], tasks)


def test_verdicts_on_trials_without_tasks_says_pass_tasks(tmp_path: Path) -> None:
    line = _one_line_error("verdicts", str(TRIALS), "--judge", "rules", "--out",
                           str(tmp_path / "run"))
    assert "no --tasks given" in line and "pass --tasks DIR" in line
    assert not (tmp_path / "run").exists()


def test_right_inputs_pass_the_checks() -> None:
    check_inputs([TRIALS], [TASKS])


def test_trials_whose_task_is_missing_get_one_hint(tmp_path: Path) -> None:
    """A --tasks that holds some tasks but not every trial's: each such trial is reported once
    and the summary says what to do."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "interval-merge-bugfix").symlink_to(TASKS / "interval-merge-bugfix")
    result = CliRunner().invoke(app, ["import", str(TRIALS), "--tasks", str(tasks), "--out",
                                      str(tmp_path / "pool")])
    assert result.exit_code == 1
    assert "failed for want of their task folder: add the folder holding it with another " \
           "--tasks DIR" in result.stderr
    assert not result.stderr.startswith("\n")  # no blank line before the report
    assert result.stderr.count("import done") == 0
