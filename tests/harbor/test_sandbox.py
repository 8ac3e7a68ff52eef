"""HarborSandbox inside a real Harbor trial: a command past its timeout is killed, with the
children it left in the background, and the judge is told so; the judge's user has its scratch
space but cannot write where verdicts, rewards or tests live."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from judge_runner.cases.dataset import Dataset
from judge_runner.harbor.export import ExportOptions, export_tasks
from tests.fakeapi.server import FakeMessagesServer, ReceivedRequest, Scripted, reply, tool_use
from tests.harbor.conftest import (
    harbor_env,
    harbor_run_argv,
    one_case_per_task,
    remove_trial_leftovers,
)
from tests.harbor.scripted import tool_results

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SLEEPER = "sleep 300 & sleep 301"
# A child that drops the sweep marker and leaves the session: only the end-of-judging kill stops it.
ESCAPE = "env -u JR_EXEC_ID setsid nohup sleep 600 >/dev/null 2>&1 & echo escaped"
COUNT = (
    "ps -eo args | grep -c '^sleep 30[01]$'; "
    "touch /scratch/x && echo scratch-writable; touch ~/x && echo home-writable; "
    "for d in /logs/agent /logs/agent/judge /logs/verifier /usr/bin /; do "
    "touch $d/planted 2>/dev/null && echo planted-in-$d; done; true"
)


class TimeoutScript:
    """plan → a command that outlives its 2 s timeout → a child escaping the sweep → count the
    leftovers and try to plant files → inspect → verdict."""

    def __init__(self) -> None:
        self.results: list[str] = []

    def __call__(self, request: ReceivedRequest) -> Scripted:
        body = request.body
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn:
            self.results += [text for _, text in tool_results(body)]
        if turn == 0:
            return reply(tool_use("write_plan", {"items": [{
                "id": "P1", "what": "w", "where": "w", "support": "s", "refute": "r"}]}))
        if turn == 1:
            return reply(tool_use("bash", {"command": SLEEPER, "timeout_s": 2}))
        if turn == 2:
            return reply(tool_use("bash", {"command": ESCAPE}))
        if turn == 3:
            return reply(tool_use("bash", {"command": COUNT}))
        if turn == 4:
            call_id, _ = tool_results(body)[0]
            return reply(tool_use("record_inspection", {
                "plan_item": "P1", "check": COUNT, "finding": "none left", "outcome": "supports",
                "evidence": [{"tool_call_id": call_id, "quote": "exit code"}]}))
        return reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r",
                                                 "citations": ["I1"]}))


def test_timeouts_kill_children_and_the_judge_cannot_write_outside_scratch(
    examples_dataset: Dataset, harbor_cli: Path, judge_image: str, tmp_path: Path
) -> None:
    case_ids = one_case_per_task(examples_dataset, 1)
    export_tasks(examples_dataset, case_ids, None, tmp_path / "tasks",
                 ExportOptions(image=judge_image))
    script = TimeoutScript()
    server = FakeMessagesServer().start()
    server.responder = script
    try:
        run = subprocess.run(harbor_run_argv(harbor_cli, tmp_path / "tasks", tmp_path / "jobs",
                                             "job", server.base_url, concurrency=1),
                             cwd=tmp_path, env=harbor_env(), capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, run.stdout[-3000:]
    finally:
        server.stop()
        remove_trial_leftovers(case_ids)
    plan, slept, escaped, counted = script.results[:4]
    assert plan.startswith("plan recorded")
    assert slept.startswith("timed out after 2s"), slept
    assert counted.splitlines()[:5] == ["exit code 0", "--- stdout ---", "0",
                                        "scratch-writable", "home-writable"], counted
    assert "planted-in" not in counted, counted
    assert "escaped" in escaped
    # The escaped child was alive for the count above (one sleep 600 is not counted there) and
    # gone by the time Harbor copied the label in and ran the verifier.
    (trial,) = [p for p in (tmp_path / "jobs" / "job").iterdir() if (p / "result.json").is_file()]
    graded = (trial / "verifier" / "test-stdout.txt").read_text()
    assert "processes of judge still running at grading: 0" in graded, graded
