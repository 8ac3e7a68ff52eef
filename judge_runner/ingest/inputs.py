"""Checks of an import's inputs made before any work: a mistyped trial path, a missing or wrong
`--tasks`, a tree without trials. Each problem is one sentence naming the wrong value and the
fix; nothing is written while any is found."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from judge_runner.core import INSTRUCTION_FILE
from judge_runner.ingest.trials import discover

TRIAL_SHAPE = "a trial folder holds result.json and agent/claude-code.txt or agent/trajectory.json"
TASKS_SHAPE = "a folder of task folders, DIR/<task>/instruction.md"


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


def check_trials(roots: list[Path]) -> None:
    """Every root exists and, together, they hold at least one trial folder."""
    for root in roots:
        if not os.path.lexists(root):
            raise InputError(f"{root}: no such file or folder{_near(root)}")
    if not any(t.problem is None for t in discover(roots)):
        where = ", ".join(str(r) for r in roots)
        raise InputError(f"no Harbor trial found under {where} ({TRIAL_SHAPE}); give trial "
                         "folders, job folders or a tree holding them")


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
    """All the up-front checks of an import (InputError for the first problem found)."""
    check_trials(roots)
    check_tasks(task_dirs)
