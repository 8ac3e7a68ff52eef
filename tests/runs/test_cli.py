"""The real `judge-runner` CLI: eval output, resume after `kill -9`, compare."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judge_runner.runs.store import STORE_FILE
from judge_runner.sandbox.engine import LABEL_PID
from tests import casebuilder
from tests.casebuilder import answer_dataset, mixed_answers
from tests.conftest import REPO
from tests.fakeapi import FakeMessagesServer, Reply, Slow
from tests.judges import sessions

FACTORY = "tests.runs.scripted_judge:make_judge"


def _env(tmp_path: Path, latency: float) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "JR_TEST_LATENCY": str(latency),
            "JR_TEST_CALLS_LOG": str(tmp_path / "calls.log"), "COLUMNS": "200"}


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "judge_runner.cli", *args]


def _eval(ds: Path, run_dir: Path, concurrency: int = 2) -> list[str]:
    return _cmd("eval", str(ds), "--judge", FACTORY, "--run-dir", str(run_dir),
                "--concurrency", str(concurrency), "--no-progress")


def _stored(run_dir: Path) -> int:
    if not (run_dir / STORE_FILE).exists():
        return 0
    db = sqlite3.connect(run_dir / STORE_FILE)
    try:
        return int(db.execute("SELECT count(*) FROM verdicts").fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0
    finally:
        db.close()


def test_eval_prints_table_and_report_path(tmp_path: Path) -> None:
    ds = answer_dataset(tmp_path / "ds", mixed_answers(6))
    done = subprocess.run(_eval(ds, tmp_path / "run"), env=_env(tmp_path, 0.0), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "balanced accuracy" in done.stdout and "gate score G" in done.stdout
    assert f"report: {tmp_path / 'run' / 'report.html'}" in done.stdout
    for name in ("verdicts.jsonl", "metrics.json", "report.html", "report.md", "run.log.jsonl"):
        assert (tmp_path / "run" / name).is_file(), name


def test_eval_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(_cmd("eval", str(tmp_path / "nope"), "--judge", "rules"),
                          env=_env(tmp_path, 0.0), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no such dataset folder" in done.stderr
    ds = answer_dataset(tmp_path / "ds", mixed_answers(2))
    done = subprocess.run(_cmd("eval", str(ds), "--judge", "nosuch"), env=_env(tmp_path, 0.0),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown judge 'nosuch'" in done.stderr


def test_split_file_with_paths_is_refused_before_anything_is_judged(tmp_path: Path) -> None:
    """A split line such as ../cases/<id> or an absolute case path would judge a folder other
    than the dataset's own cases/<id> (an absolute one: a case from anywhere, mounted for the
    judge); the whole file is refused with exit 2, naming each such line."""
    ds = answer_dataset(tmp_path / "ds", mixed_answers(3))
    outside = answer_dataset(tmp_path / "outside", mixed_answers(1))
    split = tmp_path / "split.txt"
    split.write_text(f"case-000\n../cases/case-001\n# a comment\n"
                     f"{outside / 'cases' / 'case-000'}\ncase-002\n")
    done = subprocess.run(_cmd("eval", str(ds), "--judge", FACTORY, "--split", str(split),
                               "--run-dir", str(tmp_path / "run"), "--no-progress"),
                          env=_env(tmp_path, 0.0), cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "KeyError" not in done.stderr
    message = " ".join(done.stderr.split())
    assert f"{split}:2: ../cases/case-001 (a path" in message
    assert f"{split}:4: {outside / 'cases' / 'case-000'} (a path" in message
    assert f"{split}:1:" not in message and f"{split}:5:" not in message
    assert not (tmp_path / "calls.log").exists(), "nothing may be judged"
    assert not (tmp_path / "run").exists()


def test_every_judging_command_needs_a_skill_choice_for_the_agent(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from judge_runner.cli import app

    ds = answer_dataset(tmp_path / "ds", mixed_answers(2))
    common = ["--judge", "agent", "--model", "m", "--sandbox", "local", "--no-progress"]
    for command in (["eval", str(ds), "--run-dir", str(tmp_path / "run")],
                    ["verdicts", str(ds), "--out", str(tmp_path / "pool")]):
        result = CliRunner().invoke(app, [*command, *common])
        assert result.exit_code == 2, (command[0], result.output)
        message = " ".join(result.output.replace("│", " ").split())  # unwrap the rich box
        assert "needs --skill DIR (or --skill none" in message, command[0]
        assert not (tmp_path / "run").exists() and not (tmp_path / "pool" / "run.sqlite").exists()


@pytest.mark.slow
def test_kill_9_then_rerun_judges_each_case_once(tmp_path: Path) -> None:
    n, concurrency = 24, 2
    ds = answer_dataset(tmp_path / "ds", mixed_answers(n))
    run_dir = tmp_path / "run"
    env = _env(tmp_path, 0.3)
    proc = subprocess.Popen(_eval(ds, run_dir, concurrency), env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while _stored(run_dir) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    stored_at_kill = _stored(run_dir)
    assert 6 <= stored_at_kill < n, "the kill must land mid-run"
    assert not (run_dir / "metrics.json").exists()

    rerun = subprocess.run(_eval(ds, run_dir, concurrency), env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    db = sqlite3.connect(run_dir / STORE_FILE)
    rows = db.execute("SELECT case_id, attempts FROM verdicts").fetchall()
    db.close()
    assert sorted(r[0] for r in rows) == [f"case-{i:03d}" for i in range(n)]
    assert {r[1] for r in rows} == {1}
    calls = Counter((tmp_path / "calls.log").read_text().split())
    assert set(calls) == {f"case-{i:03d}" for i in range(n)}
    # only cases in flight at the kill were judged twice
    assert sum(c - 1 for c in calls.values()) <= concurrency
    summary = json.loads((run_dir / "metrics.json").read_text())
    assert summary["n_resumed"] == stored_at_kill

    clean = subprocess.run(_eval(ds, tmp_path / "clean", 4), env=_env(tmp_path, 0.0),
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr
    clean_summary = json.loads((tmp_path / "clean" / "metrics.json").read_text())
    assert summary["metrics"] == clean_summary["metrics"]
    assert summary["metrics"]["n"] == n


def test_compare_cli(tmp_path: Path) -> None:
    ds = answer_dataset(tmp_path / "ds", mixed_answers(6))
    env = _env(tmp_path, 0.0)
    assert subprocess.run(_eval(ds, tmp_path / "a"), env=env, capture_output=True,
                          timeout=120).returncode == 0
    (ds / "cases" / "case-002" / "artifacts" / "answer.txt").write_text("fail")
    run_b = [*_eval(ds, tmp_path / "b"), "--model", "other"]
    assert subprocess.run(run_b, env=env, capture_output=True, timeout=120).returncode == 0
    done = subprocess.run(_cmd("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out",
                               str(tmp_path / "cmp.json")), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "mid-p" in done.stdout and "case-002" in done.stdout and "fixed" in done.stdout
    data = json.loads((tmp_path / "cmp.json").read_text())
    assert (data["test"]["b"], data["test"]["c"]) == (0, 1)


def test_select_cli(tmp_path: Path) -> None:
    ds = answer_dataset(tmp_path / "ds", mixed_answers(12))
    env = _env(tmp_path, 0.0)
    assert subprocess.run(_eval(ds, tmp_path / "a"), env=env, capture_output=True,
                          timeout=120).returncode == 0
    done = subprocess.run(_cmd("select", str(tmp_path / "a"), "--n-max", "3", "--repeats", "4",
                               "--out", str(tmp_path / "sel")), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "oracle" in done.stdout and "random" in done.stdout
    data = json.loads((tmp_path / "sel" / "select.json").read_text())
    assert [c["selector"] for c in data["curves"]] == [str(tmp_path / "a"), "oracle", "random"]
    assert "<polyline" in (tmp_path / "sel" / "select.html").read_text()


def test_verdicts_on_real_trial_pool_resumes(real_data: Path, tmp_path: Path) -> None:
    cmd = _cmd("verdicts", str(real_data / "trials"), "--tasks", str(real_data / "tasks"),
               "--judge", "rules", "--out", str(tmp_path / "out"), "--no-progress")
    env = _env(tmp_path, 0.0)
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    lines = (tmp_path / "out" / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == 26 and "verdicts:" in first.stdout
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    summary = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert (summary["n_judged_now"], summary["n_resumed"]) == (0, 26)
    assert (tmp_path / "out" / "verdicts.jsonl").read_text().splitlines() == lines


# --- Ctrl-C mid-run: cancelled promptly, stored verdicts kept, the rerun judges the rest -------

FAST_CASES = ("case-0", "case-1")


def _slow_after_fast(scripts: dict[str, list[Reply]], delay_s: float) -> Any:
    """Serve the agent sessions; every turn of a case not in FAST_CASES answers after
    `delay_s`, so those sessions are mid-flight for several seconds."""
    respond = sessions.responder_for(scripts)

    def slow(request: Any) -> Slow | Reply:
        answer: Reply = respond(request)
        if _case_of(request.body) in FAST_CASES:
            return answer
        return Slow(delay_s=delay_s, then=answer)

    return slow


def _case_of(body: dict[str, Any]) -> str:
    """The case a Messages request is about: the agent judge's overview starts `# Case <id>`."""
    first = body["messages"][0]["content"]
    first_text = first if isinstance(first, str) else first[0]["text"]
    return str(first_text.splitlines()[0].removeprefix("# Case ").strip())


def _containers_of(pid: int) -> list[str]:
    done = subprocess.run(["docker", "ps", "-aq", "--filter", f"label={LABEL_PID}={pid}"],
                          capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.split()


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("sandbox", ["local", "docker"])
def test_ctrl_c_cancels_in_flight_agent_sessions_and_rerun_finishes(
    tmp_path: Path, sandbox: str, signum: signal.Signals, request: pytest.FixtureRequest
) -> None:
    """Ctrl-C and SIGTERM take the same path: in-flight cases are cancelled (not stored),
    the message says where the kept verdicts are, and the exit status is 128 + the signal."""
    if sandbox == "docker":
        request.getfixturevalue("docker_engine")
    totals = {f"case-{i}": 42 if i % 2 else 40 for i in range(5)}
    ds = casebuilder.summing_dataset(tmp_path / "ds", totals)
    scripts = {c: sessions.good_session(t) for c, t in totals.items()}
    server = FakeMessagesServer().start()
    # Six turns of 1.5 s: a slow session would hold the run ~9 s past Ctrl-C without cancellation.
    server.responder = _slow_after_fast(scripts, delay_s=3.0)
    run_dir = tmp_path / "run"
    cmd = _cmd("eval", str(ds.root), "--judge", "agent",
               "--skill", str(REPO / "judgeskills" / "v1"), "--model", "claude-test",
               "--sandbox", sandbox, "--base-url", server.base_url,
               "-o", 'retry={"initial_wait_s": 0, "jitter_s": 0, "max_attempts": 2}',
               "-o", "timeout_s=10", "--run-dir", str(run_dir), "--concurrency", "2",
               "--no-progress")
    env = _env(tmp_path, 0.0)
    try:
        proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while _stored(run_dir) < len(FAST_CASES) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the slow cases are now inside their sessions
        assert proc.poll() is None, proc.communicate()
        interrupted_at = time.monotonic()
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
        exit_s = time.monotonic() - interrupted_at
        assert proc.returncode == 128 + signum, stderr
        cause = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        assert f"interrupted ({cause})" in stderr and "run the same command again" in stderr
        assert "Traceback" not in stderr
        # one model call in flight (3 s) plus process teardown; not the many 3 s turns left in
        # each slow session (the bound leaves room for a loaded machine)
        assert exit_s < 8.0, f"took {exit_s:.1f}s to stop"
        if sandbox == "docker":
            assert _containers_of(proc.pid) == []

        db = sqlite3.connect(run_dir / STORE_FILE)
        kept = dict(db.execute("SELECT case_id, decision FROM verdicts").fetchall())
        db.close()
        assert kept == {"case-0": "fail", "case-1": "pass"}, "only finished cases are stored"
        assert not (run_dir / "metrics.json").exists()
        # The cases in flight are recorded and logged as cancelled, never as errors of theirs.
        in_flight = sorted(p.parent.name for p in (run_dir / "cases").glob("*/cancelled.txt"))
        assert in_flight and set(in_flight) <= {"case-2", "case-3", "case-4"}, in_flight
        for case_id in in_flight:
            assert not (run_dir / "cases" / case_id / "verdict.json").exists()
            assert re.search(rf"cancelled\s.*{case_id}", stderr), stderr
        assert "decision=error" not in stderr and "sandbox failed" not in stderr, stderr

        server.responder = sessions.responder_for(scripts)  # answer at once from now on
        seen_before = len(server.bodies)
        rerun = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True,
                               timeout=60)
        assert rerun.returncode == 0, rerun.stderr
    finally:
        server.stop()
    rerun_cases = {_case_of(body) for body in server.bodies[seen_before:]}
    assert rerun_cases == {f"case-{i}" for i in range(2, 5)}, "stored cases are not judged again"
    summary = json.loads((run_dir / "metrics.json").read_text())
    assert summary["n_resumed"] == 2
    assert summary["decisions"] == {"pass": 2, "fail": 3, "abstain": 0, "error": 0}
