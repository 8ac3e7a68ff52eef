"""Checks of an import's inputs made before any work, for every `--format`: a mistyped path, a
missing or wrong `--tasks`, a tree without trials (plain runs, inspect logs), a missing extra.
Each problem is one sentence naming the wrong value and the fix; nothing is written while any is
found."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from judge_runner.core import INSTRUCTION_FILE
from judge_runner.ingest import inspect_log, plain
from judge_runner.ingest.trials import discover

TRIAL_SHAPE = "a trial folder holds result.json and agent/claude-code.txt or agent/trajectory.json"
TASKS_SHAPE = "a folder of task folders, DIR/<task>/instruction.md"
RUN_SHAPE = (f"a run folder holds {plain.RUN_FILE}, {plain.INSTRUCTION_FILE} and "
             f"{plain.STEPS_FILE}")
LOG_SHAPE = f"a log is a {' or '.join(inspect_log.SUFFIXES)} file written by inspect_ai"


class InputError(ValueError):
    """An import input that cannot be right; the message names it and the fix."""


def _near(path: Path) -> str:
    """` (did you mean X?)` when the parent folder holds a close name."""
    parent = path.parent
    try:
        names = sorted(os.listdir(parent)) if parent.is_dir() else []
    except OSError:
        names = []
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    return f" (did you mean {parent / close[0]}?)" if close else ""


def check_paths(roots: list[Path]) -> None:
    """Every root exists (a dangling symlink counts: it is reported where it is read)."""
    for root in roots:
        if not os.path.lexists(root):
            raise InputError(f"{root}: no such file or folder{_near(root)}")


def check_trials(roots: list[Path]) -> None:
    """Every root exists and, together, they hold at least one trial folder."""
    check_paths(roots)
    if not any(t.problem is None for t in discover(roots)):
        raise InputError(f"no Harbor trial found under {_where(roots)} ({TRIAL_SHAPE}); give "
                         "trial folders, job folders or a tree holding them")


def check_runs(roots: list[Path]) -> None:
    """`--format plain`: every root exists and, together, they hold at least one run folder."""
    check_paths(roots)
    if not any((folder / plain.RUN_FILE).is_file() for folder in plain.run_folders(roots)):
        raise InputError(f"no plain run found under {_where(roots)} ({RUN_SHAPE}); give run "
                         "folders or a folder holding them")


def check_logs(roots: list[Path]) -> None:
    """`--format inspect`: every root exists, together they hold at least one log file, and
    inspect_ai (the 'inspect' extra) is installed to read them."""
    check_paths(roots)
    if not inspect_log.log_files(roots):
        raise InputError(f"no inspect_ai log found under {_where(roots)} ({LOG_SHAPE}); give "
                         "log files or a folder holding them")
    try:
        inspect_log.require_inspect()
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _where(roots: list[Path]) -> str:
    return ", ".join(str(r) for r in roots)


def check_tasks(task_dirs: list[Path]) -> None:
    """`--tasks` is given, each is a folder, and each holds at least one task folder."""
    if not task_dirs:
        raise InputError(f"no --tasks given: every case needs its task's instruction; pass "
                         f"--tasks DIR ({TASKS_SHAPE})")
    for folder in task_dirs:
        if not folder.is_dir():
            what = "is not a folder" if folder.exists() else "does not exist"
            raise InputError(f"--tasks {folder}: {what}{_near(folder)}; it must be {TASKS_SHAPE}")
        try:
            has_task = any((entry / INSTRUCTION_FILE).is_file() for entry in folder.iterdir())
        except OSError as exc:
            raise InputError(f"--tasks {folder}: cannot be read ({exc.strerror})") from None
        if not has_task:
            raise InputError(f"--tasks {folder}: holds no task folder with {INSTRUCTION_FILE}; "
                             f"it must be {TASKS_SHAPE}")


def check_inputs(roots: list[Path], task_dirs: list[Path]) -> None:
    """All the up-front checks of a Harbor import (InputError for the first problem found)."""
    check_trials(roots)
    check_tasks(task_dirs)


def check_format_inputs(source_format: str, roots: list[Path], task_dirs: list[Path]) -> None:
    """The up-front checks of `import --format FORMAT` (harbor, plain or inspect)."""
    if source_format == plain.FORMAT:
        check_runs(roots)
    elif source_format == inspect_log.FORMAT:
        check_logs(roots)
    else:
        check_inputs(roots, task_dirs)
