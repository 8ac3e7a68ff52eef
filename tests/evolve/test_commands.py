"""The evolve CLI in real subprocesses: refusal of eval overlap, kill -9 and resume, report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.casebuilder import dev_pool
from tests.evolve.helpers import write_skill
from tests.evolve.test_loop import rewriting_optimizer
from tests.fakeapi.server import FakeMessagesServer

CLI = [sys.executable, "-m", "judge_runner.cli"]


def setup(tmp: Path) -> tuple[Path, Path, Path, Path]:
    dataset, dev, gate = dev_pool(tmp)
    splits = tmp / "splits"
    splits.mkdir()
    (splits / "dev.txt").write_text("\n".join(dev) + "\n")
    (splits / "gate.txt").write_text("\n".join(gate) + "\n")
    skill = write_skill(tmp / "judgeskills")
    return dataset, splits / "dev.txt", splits / "gate.txt", skill


def evolve_args(
    dataset: Path, dev: Path, gate: Path, skill: Path, run_dir: Path, base_url: str
) -> list[str]:
    return [
        *CLI,
        "evolve",
        "--dataset",
        str(dataset),
        "--skill",
        str(skill),
        "--dev",
        str(dev),
        "--gate",
        str(gate),
        "--run-dir",
        str(run_dir),
        "--judge",
        "tests.evolve.skill_judge:make_judge",
        "--optimizer",
        "model",
        "--optimizer-model",
        "fake-optimizer",
        "--base-url",
        base_url,
        "--rounds",
        "2",
        "--sample-size",
        "20",
        "--seed",
        "3",
        "--concurrency",
        "1",
    ]


def env(calls: Path, latency: float = 0.0) -> dict[str, str]:
    return {
        **os.environ,
        "JR_TEST_CALLS_LOG": str(calls),
        "JR_TEST_LATENCY": str(latency),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }


def test_eval_overlap_is_refused(tmp_path: Path) -> None:
    dataset, dev, gate, skill = setup(tmp_path)
    first_dev = dev.read_text().split()[0]
    (dev.parent / "eval.txt").write_text(f"{first_dev}\n")
    done = subprocess.run(
        evolve_args(dataset, dev, gate, skill, tmp_path / "run", "http://127.0.0.1:9"),
        capture_output=True,
        text=True,
        env=env(tmp_path / "c.log"),
    )
    assert done.returncode == 2
    assert "shares 1 case(s) with the eval split" in done.stderr
    assert not (tmp_path / "run").exists()


def test_kill_9_mid_round_then_resume(tmp_path: Path, fake_api: FakeMessagesServer) -> None:
    fake_api.responder = rewriting_optimizer
    dataset, dev, gate, skill = setup(tmp_path)
    run_dir = tmp_path / "run"
    calls = tmp_path / "calls.log"
    args = evolve_args(dataset, dev, gate, skill, run_dir, fake_api.base_url)
    proc = subprocess.Popen(
        args, env=env(calls, latency=0.03), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    state_file = run_dir / "state.json"
    deadline = time.monotonic() + 120
    try:
        # Kill once the first candidate exists but before its gate scoring has finished.
        while time.monotonic() < deadline:
            if state_file.is_file():
                try:
                    cands = json.loads(state_file.read_text())["candidates"]
                except ValueError:
                    cands = []
                if cands:
                    break
            time.sleep(0.01)
        else:
            raise AssertionError("no candidate was proposed in time")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    killed_state = json.loads(state_file.read_text())
    assert killed_state["rounds"][-1]["phase"] != "done"

    resumed = subprocess.run(args, env=env(calls), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    final = json.loads(state_file.read_text())
    lines = calls.read_text().splitlines()
    # Only the one case in flight at the kill (concurrency 1) may be judged again: its verdict
    # was never stored. Everything stored before the kill is reused, not re-paid.
    repeated = {line for line in lines if lines.count(line) > 1}
    assert len(lines) - len(set(lines)) <= 1 and len(repeated) <= 1
    promoted = [c for c in final["candidates"] if c["status"] == "promoted"]
    assert len(promoted) == 1
    assert sorted(p.name for p in (tmp_path / "judgeskills").iterdir()) == [
        "lineage.json",
        "v1",
        "v2",
    ]

    # The same evolution without the kill reaches the same final state.
    clean = tmp_path / "clean"
    clean_skill = write_skill(clean / "judgeskills")
    again = subprocess.run(
        evolve_args(dataset, dev, gate, clean_skill, clean / "run", fake_api.base_url),
        env=env(clean / "calls.log"),
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    reference = json.loads((clean / "run" / "state.json").read_text())

    def outline(s: dict) -> list[tuple[str, str, float | None]]:  # type: ignore[type-arg]
        return [
            (c["id"], c["status"], (c["gate"] or {}).get("gate_score")) for c in s["candidates"]
        ]

    assert outline(final) == outline(reference)
    assert final["spend"]["judge_calls"] == reference["spend"]["judge_calls"]

    report = subprocess.run(
        [*CLI, "evolve", "report", str(run_dir)], env=env(calls), capture_output=True, text=True
    )
    assert report.returncode == 0, report.stderr
    assert "| v2 |" in report.stdout and "r1-false_pass_hardening" in report.stdout
    assert "optimizer: $" in report.stdout


def test_an_interrupted_evolve_says_so_like_eval_and_resumes(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    """Ctrl-C and SIGTERM end evolve as they end eval: one message saying where the state is
    kept and how to go on, exit 128 + the signal, no traceback; the rerun finishes the run and
    a finished run leaves no staging folder behind. (Ctrl-C takes the same path as SIGTERM:
    both reach the command as one interrupt, see cli.support.stop_status.)"""
    signum = signal.SIGTERM
    fake_api.responder = rewriting_optimizer
    dataset, dev, gate, skill = setup(tmp_path)
    run_dir = tmp_path / "run"
    args = evolve_args(dataset, dev, gate, skill, run_dir, fake_api.base_url)
    proc = subprocess.Popen(args, env=env(tmp_path / "calls.log", latency=0.05),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "state.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # inside the first round's judging
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, stderr
    assert (f"interrupted (SIGTERM): the evolution state is kept in {run_dir}; run the same "
            "command again to resume it") in stderr
    assert "Traceback" not in stderr

    resumed = subprocess.run(args, env=env(tmp_path / "calls.log"), capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert not (run_dir / "promoting").exists()
