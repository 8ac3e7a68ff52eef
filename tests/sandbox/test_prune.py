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
from tests.casebuilder import answer_dataset, mixed_answers
from tests.conftest import REPO
from tests.sandbox.conftest import Planted, docker_client

pytestmark = pytest.mark.docker

# Opens a sandbox, prints its container name, then waits to be signalled. argv[3] "default"
# first gives SIGINT, SIGTERM and SIGHUP their default dispositions, as in a terminal session:
# a test run started under nohup (or as a background job) passes SIGHUP (SIGINT) on ignored,
# and the sandbox rightly leaves an ignored signal alone, so without this such a run would
# wait for a holder that never exits ("inherit" keeps what the test run has).
HOLDER = """
import json, signal, sys, time
if sys.argv[3] == "default":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
from pathlib import Path
from judge_runner import log
from judge_runner.sandbox.docker import DockerSandbox
log.configure()
with DockerSandbox(Path(sys.argv[1]), labels=json.loads(sys.argv[2])) as box:
    print(box.name, flush=True)
    time.sleep(600)
"""
# Only catches a hang: the whole cleanup takes about 2-3 s with both cores busy.
EXIT_BOUND_S = 120


def _hold(planted: Planted, labels: dict[str, str], signals: str = "default",
          ignore_hup: bool = False) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(planted.case_dir), json.dumps(labels), signals],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        # What nohup does to the program it starts.
        preexec_fn=(lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) if ignore_hup
        else None)
    assert proc.stdout is not None
    name = proc.stdout.readline().strip()
    if not name.startswith("jr-case-a-"):
        _stop(proc)
        pytest.fail(f"the holder did not start a sandbox: {name!r}")
    return proc, name


def _stop(proc: subprocess.Popen[str]) -> None:
    """End a holder that a failed check left running (its container goes with the session's
    cleanup; SIGKILL lets no handler run)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=EXIT_BOUND_S)


def _exists(name: str) -> bool:
    client = docker_client()
    try:
        found = client.api.containers(all=True, filters={"name": name})
        return any(c["Names"] == [f"/{name}"] for c in found)
    finally:
        client.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: signal.Signals(s).name)
def test_interrupted_owner_removes_its_container(
    docker_engine: None, planted: Planted, test_labels: dict[str, str], signum: int
) -> None:
    proc, name = _hold(planted, test_labels)
    try:
        assert _exists(name)
        proc.send_signal(signum)
        # SIGINT: an uncaught KeyboardInterrupt ends Python by that signal; the handler of the
        # other two exits with 128 + the signal number.
        expected = -signal.SIGINT if signum == signal.SIGINT else 128 + signum
        assert proc.wait(timeout=EXIT_BOUND_S) == expected
        assert not _exists(name)
    finally:
        _stop(proc)


def test_an_owner_started_under_nohup_keeps_its_container_on_sighup(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    """An inherited SIG_IGN (nohup) is the caller's choice and is kept: SIGHUP neither ends the
    holder nor removes its container; SIGTERM still does both."""
    proc, name = _hold(planted, test_labels, signals="inherit", ignore_hup=True)
    try:
        proc.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=3)
        assert _exists(name)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=EXIT_BOUND_S) == 128 + signal.SIGTERM
        assert not _exists(name)
    finally:
        _stop(proc)


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
    ds = answer_dataset(tmp_path / "ds", mixed_answers(2))
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
        _, stderr = proc.communicate(timeout=EXIT_BOUND_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=EXIT_BOUND_S)
    assert proc.returncode == 128 + signal.SIGTERM, stderr[-3000:]  # the handler ran
    assert _owned_by(proc.pid) == [], stderr[-3000:]


def test_prune_removes_what_a_killed_run_left_and_spares_live_runs(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    killed, orphan = _hold(planted, test_labels)
    live, alive = _hold(planted, test_labels)
    try:
        killed.kill()  # SIGKILL: no handler can run, the container stays
        killed.wait(timeout=EXIT_BOUND_S)
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
        live.wait(timeout=EXIT_BOUND_S)
        _stop(killed)
    assert not _exists(alive)
