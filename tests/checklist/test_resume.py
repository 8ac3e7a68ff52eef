"""A checklist run killed with SIGKILL (or stopped with SIGTERM) in the middle and run again:
the cases stored before the signal are never judged again, the rest are judged once, and the
resumed run's scores are those of an uninterrupted one. Asserted on the requests the scripted
Messages server received.

The run is a real `judge-runner eval` process with one worker; the server answers the first two
item-judge requests and holds the third until the signal has been sent, so the signal lands
while a case is in flight. SIGKILL loses that case (it is judged again on resume). SIGTERM
cancels the run cooperatively: a model call already sent is not cut (the client polls
cancellation between attempts), so the held answer arrives, that case is stored, and the fourth
never starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from judge_runner.checklist.models import write_checklist
from judge_runner.checklist.synth import SynthPayload, to_checklist
from judge_runner.checklist.tasks import load_task
from judge_runner.runs import RunStore
from tests.checklist.helpers import TASK, write_runs, write_task
from tests.checklist.runs import GOLDEN, eval_checklist, scores_jsonl
from tests.checklist.test_pipeline import judge_responder, synth_items
from tests.conftest import REPO
from tests.fakeapi.server import FakeMessagesServer, ReceivedRequest, Scripted

ANSWERED_BEFORE_KILL = 2
N_CASES = 4
WAIT_S = 60.0  # only catches a hang


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize(("signum", "status", "kept"), [
    (signal.SIGKILL, -signal.SIGKILL, ANSWERED_BEFORE_KILL),
    (signal.SIGTERM, 128 + signal.SIGTERM, ANSWERED_BEFORE_KILL + 1)])
def test_a_run_stopped_mid_way_resumes_judging_each_case_once(
        fake_api: FakeMessagesServer, tmp_path: Path, signum: int, status: int,
        kept: int) -> None:
    task = load_task(write_task(tmp_path / "tasks", TASK))
    dataset = write_runs(tmp_path / "data")
    payload = SynthPayload.model_validate(
        {"items": synth_items("with the keys `days` and `mean_temp`")})
    write_checklist(tmp_path / "cl", to_checklist(payload, task, "rules", "m-syn"))
    run_dir = tmp_path / "run"

    signalled = threading.Event()

    def first_two_then_hold(request: ReceivedRequest) -> Scripted:
        if len(fake_api.requests) > ANSWERED_BEFORE_KILL:
            signalled.wait(WAIT_S)  # this server thread answers once the signal is sent
        return judge_responder(request)

    fake_api.responder = first_two_then_hold
    command = [sys.executable, "-m", "judge_runner", "eval", str(dataset), "--judge",
               "checklist", "-o", f"checklists={tmp_path / 'cl'}", "--model", "m-judge",
               "--base-url", fake_api.base_url, "--run-dir", str(run_dir), "--concurrency", "1",
               "--no-progress"]
    env = {**os.environ, "ANTHROPIC_API_KEY": "test"}
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: len(fake_api.requests) > ANSWERED_BEFORE_KILL or
                  process.poll() is not None, "the third item-judge request")
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        with RunStore.open(run_dir) as store:
            _wait_for(lambda: len(store.verdicts()) == ANSWERED_BEFORE_KILL,
                      "two stored verdicts")
        process.send_signal(signum)
        signalled.set()
        process.wait(timeout=WAIT_S)
    finally:
        signalled.set()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == status
    with RunStore.open(run_dir) as store:
        before = {case: v.model_dump_json() for case, v in store.verdicts().items()}
    assert len(before) == kept
    assert not (run_dir / "verdicts.jsonl").exists()  # the stopped run wrote no outputs

    fake_api.responder = judge_responder
    n_first = len(fake_api.requests)
    eval_checklist(dataset, tmp_path / "cl", run_dir, "--model", "m-judge", "--base-url",
                   fake_api.base_url, "--concurrency", "1")
    resumed = fake_api.requests[n_first:]
    # nothing re-judged: one request per case not stored before the signal (after SIGKILL the
    # one in flight and the one never started), none for the stored ones
    assert len(resumed) == N_CASES - kept
    stored_logs = [(run_dir / "cases" / c / "transcript.jsonl").read_text() for c in before]
    for request in resumed:
        text = request.body["messages"][0]["content"][0]["text"]
        assert all(text not in log for log in stored_logs)
    with RunStore.open(run_dir) as store:
        after = store.verdicts()
        assert set(store.attempts().values()) == {1}
    assert {c: after[c].model_dump_json() for c in before} == before  # kept as stored
    assert len(after) == N_CASES  # nothing lost
    # and the scores are those of the uninterrupted standalone pipeline on the same inputs
    assert scores_jsonl(run_dir) == (GOLDEN / "pipeline" / "scores.jsonl").read_text()
