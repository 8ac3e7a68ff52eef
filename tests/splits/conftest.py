"""The real SkillsBench trials imported once per session into a temporary dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.ingest.importer import ImportOptions, import_trials


@pytest.fixture(scope="session")
def real_dataset(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "dataset"
    import_trials([real_data / "trials"], out, ImportOptions(task_dirs=[real_data / "tasks"]))
    return out
