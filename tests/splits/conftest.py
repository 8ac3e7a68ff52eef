"""Datasets for the split tests: the real SkillsBench trials (once per session) and the bundled
examples (fresh per test, so a test may change them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.ingest import ImportOptions, import_trials
from tests.conftest import EXAMPLES


@pytest.fixture(scope="session")
def real_dataset(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "dataset"
    import_trials([real_data / "trials"], out, ImportOptions(task_dirs=[real_data / "tasks"]))
    return out


def import_examples(out: Path) -> Path:
    """The 12 bundled example trials (4 tasks, each with pass and fail runs) imported to `out`."""
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    return out


@pytest.fixture
def examples_dataset(tmp_path: Path) -> Path:
    return import_examples(tmp_path / "dataset")
