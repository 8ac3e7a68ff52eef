"""Viewer fixtures: runs made once per session by real judges, and a headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_runner.cases import Dataset
from judge_runner.runs.runner import RunResult
from tests import casebuilder
from tests.conftest import require
from tests.fakeapi import FakeMessagesServer
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
    return casebuilder.imported_examples(tmp_path_factory.mktemp("examples") / "dataset")


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
