"""Finding Harbor trial folders and reading their `result.json`.

A trial folder is a folder holding ``result.json``. A folder that holds an ``agent/`` transcript
but no ``result.json`` is also returned, so the importer can report it instead of silently
ignoring it. Symlinked folders are not followed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRANSCRIPTS = ("agent/claude-code.txt", "agent/trajectory.json")


class TrialError(Exception):
    """A trial whose `result.json` is missing or unusable; the message says which field."""


@dataclass(frozen=True)
class FoundTrial:
    path: Path
    display: str  # `<root name>/<relative path>`: stable whatever the working directory


@dataclass(frozen=True)
class TrialResult:
    task: str
    trial_name: str
    reward: float | None
    exception: str | None
    agent: str | None
    model: str | None


def discover(roots: list[Path]) -> list[FoundTrial]:
    """All trial folders under `roots`, sorted by display path, each listed once."""
    found: dict[Path, FoundTrial] = {}
    for root in roots:
        base = root.resolve()
        name = base.name or "trials"
        if _looks_like_trial(base) or not base.is_dir():
            found.setdefault(base, FoundTrial(base, name))
            continue
        for dirpath, dirnames, _files in os.walk(base, followlinks=False):
            current = Path(dirpath)
            dirnames.sort()
            if _looks_like_trial(current):
                rel = current.relative_to(base).as_posix()
                found.setdefault(current, FoundTrial(current, f"{name}/{rel}"))
                dirnames.clear()  # a trial's own subfolders hold no further trials
    return sorted(found.values(), key=lambda t: t.display)


def _looks_like_trial(path: Path) -> bool:
    return (path / "result.json").is_file() or any((path / t).is_file() for t in TRANSCRIPTS)


def read_result(trial: Path) -> TrialResult:
    path = trial / "result.json"
    if not path.is_file():
        raise TrialError("missing result.json")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TrialError(f"result.json is not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise TrialError(f"result.json is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    if not isinstance(data, dict):
        raise TrialError("result.json: top level is not an object")
    task = data.get("task_name")
    if not isinstance(task, str) or not task:
        raise TrialError("result.json: 'task_name' is missing or empty")
    trial_name = data.get("trial_name")
    config = _dict(data.get("config"))
    agent_cfg = _dict(config.get("agent"))
    exc_info = data.get("exception_info")
    return TrialResult(
        task=task,
        trial_name=trial_name if isinstance(trial_name, str) and trial_name else trial.name,
        reward=_reward(data),
        exception=str(_dict(exc_info).get("exception_type") or "unknown") if exc_info else None,
        agent=_str(agent_cfg.get("name")) or _str(_dict(data.get("agent_info")).get("name")),
        model=_str(agent_cfg.get("model_name")),
    )


def _reward(data: dict[str, Any]) -> float | None:
    rewards = _dict(_dict(data.get("verifier_result")).get("rewards"))
    value = rewards.get("reward")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
