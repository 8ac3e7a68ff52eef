"""Wrong import inputs are one line naming the value and the fix, before anything is written:
a mistyped trial path, a tree without trials, no --tasks, a --tasks that is not a task folder;
with --format plain and --format inspect, a mistyped path or a folder without runs or logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.ingest.inputs import InputError, check_format_inputs, check_inputs
from tests.conftest import EXAMPLES
from tests.ingest.test_plain import STEPS, plain_run

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


@pytest.mark.parametrize("source_format", ["plain", "inspect"])
def test_plain_and_inspect_imports_refuse_a_mistyped_path_before_writing(
    tmp_path: Path, source_format: str
) -> None:
    runs = tmp_path / "runs"
    plain_run(runs, "r1", STEPS, {"reward": 1.0})
    (runs / "adder.eval").write_bytes(b"not read before the checks")
    out = tmp_path / "pool"
    for given, expected in [
        (tmp_path / "rnus", f"{tmp_path / 'rnus'}: no such file or folder (did you mean "
                            f"{runs}?)"),
        (tmp_path / "gone" / "run", f"{tmp_path / 'gone' / 'run'}: no such file or folder"),
    ]:
        line = _one_line_error("import", "--format", source_format, str(runs), str(given),
                               "--out", str(out))
        assert line == f"error: {expected}"
        assert not out.exists()
        with pytest.raises(InputError):
            check_format_inputs(source_format, [runs, given], [])


@pytest.mark.parametrize(("source_format", "expected"), [
    ("plain", "no plain run found under {where} (a run folder holds run.json, instruction.md "
              "and steps.jsonl); give run folders or a folder holding them"),
    ("inspect", "no inspect_ai log found under {where} (a log is a .eval or .json file written "
                "by inspect_ai); give log files or a folder holding them"),
])
def test_plain_and_inspect_imports_refuse_a_folder_without_runs(
    tmp_path: Path, source_format: str, expected: str
) -> None:
    empty = tmp_path / "empty"
    (empty / "nested").mkdir(parents=True)
    (empty / "nested" / "notes.md").write_text("no run here\n")
    out = tmp_path / "pool"
    line = _one_line_error("import", "--format", source_format, str(empty), "--out", str(out))
    assert line == "error: " + expected.format(where=empty)
    assert not out.exists()


def test_plain_runs_pass_the_checks(tmp_path: Path) -> None:
    plain_run(tmp_path / "runs", "r1", STEPS)
    check_format_inputs("plain", [tmp_path / "runs"], [])
    check_format_inputs("plain", [tmp_path / "runs" / "r1"], [])
