"""Containers go away when the owning process is interrupted; `sandbox prune` finds the rest."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.conftest import REPO
from tests.sandbox.conftest import Planted, docker_client

pytestmark = pytest.mark.docker

# Opens a sandbox, prints its container name, then waits to be signalled.
HOLDER = """
import json, sys, time
from pathlib import Path
from judge_runner import log
from judge_runner.sandbox.docker import DockerSandbox
log.configure()
with DockerSandbox(Path(sys.argv[1]), labels=json.loads(sys.argv[2])) as box:
    print(box.name, flush=True)
    time.sleep(600)
"""


def _hold(planted: Planted, labels: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(planted.case_dir), json.dumps(labels)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    name = proc.stdout.readline().strip()
    if not name.startswith("jr-case-a-"):
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        pytest.fail(f"the holder did not start a sandbox: {name!r}")
    return proc, name


def _exists(name: str) -> bool:
    client = docker_client()
    try:
        found = client.api.containers(all=True, filters={"name": name})
        return any(c["Names"] == [f"/{name}"] for c in found)
    finally:
        client.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupted_owner_removes_its_container(
    docker_engine: None, planted: Planted, test_labels: dict[str, str], signum: int
) -> None:
    proc, name = _hold(planted, test_labels)
    assert _exists(name)
    proc.send_signal(signum)
    proc.wait(timeout=30)
    assert not _exists(name)


def test_prune_removes_what_a_killed_run_left_and_spares_live_runs(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    killed, orphan = _hold(planted, test_labels)
    live, alive = _hold(planted, test_labels)
    try:
        killed.kill()  # SIGKILL: no handler can run, the container stays
        killed.wait(timeout=30)
        time.sleep(0.2)
        assert _exists(orphan)
        runner = CliRunner()
        dry = runner.invoke(app, ["sandbox", "prune", "--dry-run"])
        assert dry.exit_code == 0 and f"would remove {orphan}" in dry.output
        assert alive not in dry.output and _exists(orphan)
        result = runner.invoke(app, ["sandbox", "prune"])
        assert result.exit_code == 0, result.output
        assert f"removed {orphan}" in result.output
        assert not _exists(orphan) and _exists(alive)
    finally:
        live.send_signal(signal.SIGINT)
        live.wait(timeout=30)
    assert not _exists(alive)
