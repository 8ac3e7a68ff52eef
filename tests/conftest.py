"""Shared test fixtures.

Tests that need `../shared` (real SkillsBench trials) or a Docker engine skip with a reason on a
user's machine, but in CI (CI=true) a missing prerequisite is a failure, never a skip.
"""

from __future__ import annotations

import importlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["tests.fakeapi.fixtures"]

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_DATA = SHARED / "data" / "skillsbench-real"
EXAMPLES = REPO / "bench" / "examples"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, reason: str) -> None:
    """Skip locally when `condition` is false; fail in CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def docker_sdk() -> Any:
    """The docker SDK module, imported by name: the repository's own docker/ folder (the image
    definitions) shadows it for mypy run from the repository root."""
    return importlib.import_module("docker")


def docker_available() -> bool:
    try:
        client = docker_sdk().from_env(timeout=5)
        client.ping()
        client.close()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def real_data() -> Path:
    require((REAL_DATA / "MANIFEST.json").is_file(),
            f"real SkillsBench trials not found at {REAL_DATA}")
    return REAL_DATA


@pytest.fixture(scope="session")
def shared_categories() -> Path:
    """`../shared/data/skillsbench-tasks/categories.tsv`: every SkillsBench task and category."""
    path = SHARED / "data" / "skillsbench-tasks" / "categories.tsv"
    require(path.is_file(), f"SkillsBench task categories not found at {path}")
    return path


@pytest.fixture(scope="session")
def docker_engine() -> None:
    require(docker_available(), "no Docker engine answers (start dockerd to run sandbox tests)")


HARNESSES = SHARED / "data" / "skillsbench-harnesses"


@pytest.fixture(scope="session")
def every_harness(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real trials of every harness (Claude Code, terminus-2, gemini-cli) imported once per
    session into one dataset; every trial must import."""
    from judge_runner.ingest import ImportOptions, TrialStatus, import_trials

    require((HARNESSES / "MANIFEST.json").is_file(), f"harness trials not found at {HARNESSES}")
    out = tmp_path_factory.mktemp("harnesses") / "dataset"
    report = import_trials([real_data / "trials", HARNESSES / "trials"], out,
                           ImportOptions(task_dirs=[real_data / "tasks", HARNESSES / "tasks"]))
    assert [t.reason for t in report.trials if t.status is not TrialStatus.IMPORTED] == []
    return out


@pytest.fixture(scope="session")
def real_dataset(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real SkillsBench trials imported once per test session into a temporary dataset."""
    from judge_runner.ingest import ImportOptions, import_trials

    out = tmp_path_factory.mktemp("real") / "dataset"
    import_trials([real_data / "trials"], out, ImportOptions(task_dirs=[real_data / "tasks"]))
    return out


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mount a small tmpfs (`small_disk("1m")`) to fill up: a real full disk (ENOSPC), not a
    mocked write. Needs root and mount permission; skips without it (fails in CI, run as root).
    Every mount is undone at the end."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        target = tmp_path / f"disk{len(mounted)}"
        target.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(target)], capture_output=True, text=True, check=False)
        require(done.returncode == 0, f"cannot mount a {size} tmpfs to fill up (needs root and "
                                      f"mount permission): {done.stderr.strip()}")
        mounted.append(target)
        return target

    yield mount
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


def fill_disk(folder: Path, leave: int) -> None:
    """Fill the file system of `folder` until `leave` bytes are free."""
    free = os.statvfs(folder)
    room = free.f_bavail * free.f_frsize - leave
    if room > 0:
        (folder / "filler").write_bytes(b"\0" * room)
