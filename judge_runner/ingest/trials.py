"""Finding Harbor trial folders and reading their `result.json`.

A trial folder is a folder holding ``result.json``, except a Harbor job folder: a job's own
``result.json`` (run statistics, no task) sits beside its trial folders, so a folder with no
``agent/`` whose subfolders hold ``result.json`` or ``agent/`` is searched, not imported. A
folder that holds an ``agent/`` transcript but no ``result.json`` is also returned, so the
importer can report it instead of silently ignoring it. Symlinked folders are not followed;
one met below a root (or a root that cannot be read at all) is returned with a `problem`
saying what it is, so the report names it.

`result.json` is read only when it is a regular file (see `paths.read_regular`): a directory, a
pipe or a link in its place is reported as what it is. The fields taken from it are checked:
`task_name` must be a plain folder name (it is joined to the ``--tasks`` folders) and a reward
must be a finite number. Harbor's `exception_info` is split by phase: an exception of the
agent's own run (``Agent*``: `AgentTimeoutError`, `AgentSetupTimeoutError`...) may be shown to a
judge; any other (the verifier's, the environment's, an unknown one) is verifier-side
information and is kept only as evidence.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_runner.ingest.paths import NotRegularFileError, describe, plain_name, read_regular

TRANSCRIPTS = ("agent/claude-code.txt", "agent/trajectory.json")
RESULT_FILE = "result.json"
MAX_RESULT_BYTES = 16 * 1024 * 1024
# Exception types raised by the agent's own run; any other type is verifier-side evidence.
AGENT_EXCEPTION_PREFIX = "Agent"


class TrialError(Exception):
    """A trial whose `result.json` is missing or unusable; the message says which field."""


@dataclass(frozen=True)
class FoundTrial:
    path: Path
    display: str  # `<root name>/<relative path>`: stable whatever the working directory
    problem: str | None = None  # set when the folder was found but cannot be walked into


@dataclass(frozen=True)
class TrialResult:
    task: str
    trial_name: str
    reward: float | None
    exception: str | None  # exception type of the agent's own run, the only kind a judge sees
    agent: str | None
    model: str | None
    verifier_exception: dict[str, Any] | None = None  # any other exception_info: evidence only


def discover(roots: list[Path]) -> list[FoundTrial]:
    """All trial folders under `roots`, sorted by display path, each listed once.

    A symlinked folder below a root is not followed; it is returned with a `problem` naming it
    (a loop, a link to a folder), and so is a root that does not resolve.
    """
    found: dict[Path, FoundTrial] = {}
    for root in roots:
        try:
            base = root.resolve(strict=root.is_symlink())
        except (OSError, RuntimeError):
            found.setdefault(root.absolute(), FoundTrial(
                root.absolute(), root.name or "trials",
                f"{root}: {describe(root) or 'missing'}, not followed"))
            continue
        name = base.name or "trials"
        if _looks_like_trial(base) or not base.is_dir():
            found.setdefault(base, FoundTrial(base, name))
            continue
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            current = Path(dirpath)
            dirnames.sort()
            if _looks_like_trial(current):
                rel = current.relative_to(base).as_posix()
                found.setdefault(current, FoundTrial(current, f"{name}/{rel}"))
                dirnames.clear()  # a trial's own subfolders hold no further trials
                continue
            for link in sorted(n for n in dirnames + filenames if (current / n).is_symlink()):
                what = describe(current / link)
                if what not in ("symlink loop", "symlink to a directory"):
                    continue  # a link to a file, or a dangling one, cannot hold trials
                rel = (current / link).relative_to(base).as_posix()
                found.setdefault(current / link, FoundTrial(
                    current / link, f"{name}/{rel}", f"{what}, not followed (trial folders "
                                                    "are never reached through symlinks)"))
    return sorted(found.values(), key=lambda t: t.display)


def _looks_like_trial(path: Path) -> bool:
    if any((path / t).is_file() for t in TRANSCRIPTS):
        return True
    return os.path.lexists(path / RESULT_FILE) and not _is_job(path)


def _is_job(path: Path) -> bool:
    """A Harbor job folder: its own (job-level) result.json beside trial folders, no agent/."""
    if os.path.lexists(path / "agent"):
        return False
    try:
        children = [c for c in path.iterdir() if c.is_dir() and not c.is_symlink()]
    except OSError:
        return False
    return any(os.path.lexists(c / RESULT_FILE) or (c / "agent").is_dir() for c in children)


def read_result(trial: Path) -> TrialResult:
    """The fields of `<trial>/result.json` the importer uses. TrialError says what is wrong."""
    path = trial / RESULT_FILE
    what = describe(path)
    if what is None:
        raise TrialError(f"missing {RESULT_FILE}")
    try:
        raw = read_regular(path, MAX_RESULT_BYTES)
    except NotRegularFileError as exc:
        raise TrialError(f"{RESULT_FILE} is not usable: {exc}") from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TrialError(f"result.json is not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise TrialError(f"result.json is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    if not isinstance(data, dict):
        raise TrialError("result.json: top level is not an object")
    task = data.get("task_name")
    if not isinstance(task, str) or not task:
        raise TrialError("result.json: 'task_name' is missing or empty")
    if not plain_name(task):
        raise TrialError(f"result.json: 'task_name' {task!r} is not a plain task folder name "
                         "(no '/', '\\', '..', NUL or absolute path); refusing to look it up")
    trial_name = data.get("trial_name")
    config = _dict(data.get("config"))
    agent_cfg = _dict(config.get("agent"))
    exc_info = data.get("exception_info")
    exc_type = str(_dict(exc_info).get("exception_type") or "unknown") if exc_info else None
    from_agent = exc_type is not None and exc_type.startswith(AGENT_EXCEPTION_PREFIX)
    return TrialResult(
        task=task,
        trial_name=trial_name if isinstance(trial_name, str) and trial_name else trial.name,
        reward=_reward(data),
        exception=exc_type if from_agent else None,
        agent=_str(agent_cfg.get("name")) or _str(_dict(data.get("agent_info")).get("name")),
        model=_str(agent_cfg.get("model_name")),
        verifier_exception=None if from_agent or exc_info is None else
        (exc_info if isinstance(exc_info, dict) else {"exception_info": exc_info}),
    )


def _reward(data: dict[str, Any]) -> float | None:
    rewards = _dict(_dict(data.get("verifier_result")).get("rewards"))
    value = rewards.get("reward")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value):
        raise TrialError(f"result.json: verifier_result.rewards.reward is {value!r}, not a "
                         "finite number; refusing to label the trial")
    return float(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
