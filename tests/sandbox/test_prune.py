"""Containers go away when the owning process is interrupted; `sandbox prune` finds the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.conftest import REPO
from tests.runs.casebuild import mixed_specs, write_dataset
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


def _owned_by(pid: int) -> list[str]:
    client = docker_client()
    try:
        found = client.api.containers(
            all=True, filters={"label": f"judge-runner.owner-pid={pid}"})
        return sorted(c["Names"][0].lstrip("/") for c in found)
    finally:
        client.close()


def test_terminated_eval_removes_the_containers_its_worker_threads_opened(
    docker_engine: None, tmp_path: Path, test_labels: dict[str, str]
) -> None:
    """`judge-runner eval` opens sandboxes in worker threads, where Python cannot install signal
    handlers; a SIGTERM to the run still removes every container it holds."""
    ds = write_dataset(tmp_path / "ds", mixed_specs(2))
    announce = tmp_path / "opened.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "JR_TEST_ANNOUNCE": str(announce),
           "JR_TEST_SANDBOX_LABELS": json.dumps(test_labels)}
    argv = [sys.executable, "-m", "judge_runner.cli", "eval", str(ds), "--judge",
            "tests.sandbox.sandboxed_judge:make_judge", "--sandbox", "docker",
            "--concurrency", "2", "--run-dir", str(tmp_path / "run"), "--no-progress"]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if announce.exists() and len(announce.read_text().split()) == 2:
                break
            time.sleep(0.1)
        opened = announce.read_text().split() if announce.exists() else []
        assert len(opened) == 2, f"the run did not open two sandboxes: {opened}"
        assert _owned_by(proc.pid) == sorted(opened)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, stderr[-3000:]  # the handler ran
    assert _owned_by(proc.pid) == [], stderr[-3000:]


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
