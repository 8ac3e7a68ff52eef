"""Viewer fixtures: runs made once per session by real judges, and a headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_runner.cases import Dataset
from judge_runner.runs.runner import RunResult
from tests.conftest import EXAMPLES, require
from tests.fakeapi import FakeMessagesServer
from tests.judges import casekit
from tests.view import runs
from tests.view.browser import Browser, browser, playwright_missing


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return runs.hostile_dataset(tmp_path_factory.mktemp("hostile") / "dataset")


@pytest.fixture(scope="session")
def citing(hostile: Dataset, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """The citing judge over the hostile cases (case-0 is misjudged)."""
    return runs.citing_run(hostile, tmp_path_factory.mktemp("citing") / "run")


@pytest.fixture(scope="session")
def examples_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    from judge_runner.ingest import ImportOptions, import_trials

    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    out = tmp_path_factory.mktemp("examples") / "dataset"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    casekit.register_secrets(out)
    return Dataset(out)


@pytest.fixture(scope="session")
def agent(examples_dataset: Dataset, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """The agent judge on the examples via the scripted Messages server (local sandbox)."""
    server = FakeMessagesServer().start()
    try:
        return runs.agent_run(examples_dataset, tmp_path_factory.mktemp("agent") / "run", server)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    missing = playwright_missing()
    require(missing is None, f"headless Chromium checks need it: {missing}")
    with browser() as b:
        yield b
