"""The local model (scripts/local-model: llama.cpp's llama-server with Qwen2.5-Coder-0.5B) for
tests marked `local_model`: started once per test run on a free port and stopped after it.
Where it is not installed the tests skip with that reason, except in CI
(.ci/run installs it), where a missing model is a failure."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from tests import casebuilder
from tests.conftest import EXAMPLES, REPO, require

SCRIPT = REPO / "scripts" / "local-model"
MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
START_TIMEOUT_S = 400


@dataclass(frozen=True)
class LocalModel:
    base_url: str

    def counters(self) -> dict[str, float]:
        """The server's own token counters (GET /metrics), to check our usage against."""
        with urllib.request.urlopen(f"{self.base_url}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        out: dict[str, float] = {}
        for line in text.splitlines():
            if line.startswith("llamacpp:") and " " in line:
                name, value = line.split(" ", 1)
                out[name.removeprefix("llamacpp:")] = float(value)
        return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModel]:
    """A server of our own on a free port, started once and stopped at the end: no other user
    of the machine's model server adds to its counters or shares its prompt cache, so usage
    checks are exact and each run starts from the same state."""
    env = {**os.environ, "JR_MODEL_PORT": str(free_port())}

    def script(command: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(SCRIPT), command], capture_output=True,
                              text=True, timeout=timeout, env=env)

    started = script("start", START_TIMEOUT_S)
    require(started.returncode != 3,
            "the local model is not installed (run scripts/local-model install)")
    if started.returncode != 0:
        pytest.fail(f"scripts/local-model start failed:\n{started.stderr[-3000:]}")
    try:
        yield LocalModel(started.stdout.strip())
    finally:
        script("stop", 60)


@pytest.fixture(scope="session")
def example_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The bundled example trials imported once (labels and evidence registered as secrets)."""
    from judge_runner.ingest import ImportOptions, import_trials

    out = tmp_path_factory.mktemp("local-examples") / "dataset"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    casebuilder.register_secrets(out)
    return Dataset(out)


def case_of_task(dataset: Dataset, task: str) -> str:
    for case_id in dataset.case_ids():
        meta = json.loads((dataset.cases_dir / case_id / "case.json").read_text())
        if meta.get("task") == task:
            return case_id
    raise AssertionError(f"no bundled case of task {task}")


def split_file(tmp: Path, case_id: str) -> Path:
    path = tmp / "split.txt"
    path.write_text(case_id + "\n")
    return path
