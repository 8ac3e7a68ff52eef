"""HarborSandbox over an environment running this host's shell: the Sandbox contract (results,
timeouts, files). Inside a real Harbor trial: a command past its timeout is killed, with the
children it left in the background, and the judge is told so; the judge's user has its scratch
space but cannot write where verdicts, rewards or tests live."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.harbor.export import ExportOptions, export_tasks
from judge_runner.harbor.sandbox import HarborSandbox
from judge_runner.sandbox import SandboxLimits
from tests.fakeapi.server import ReceivedRequest, Scripted, reply, tool_use
from tests.harbor.conftest import describe_trials, one_case_per_task, run_harbor_job
from tests.harbor.hostenv import HostEnvironment
from tests.harbor.scripted import tool_results


@pytest.fixture
def host_box(tmp_path: Path) -> Iterator[HarborSandbox]:
    """A HarborSandbox whose environment lives on an event loop in another thread, as in a
    trial (the sandbox is called from the judge's worker thread, never from the loop)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        with HarborSandbox(HostEnvironment(), loop, SandboxLimits(kill_grace=0.5)) as box:
            yield box
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def test_a_finished_command_keeps_its_exit_code_and_output(host_box: HarborSandbox) -> None:
    result = host_box.exec("echo out; echo err >&2; exit 3")
    assert (result.exit_code, result.timed_out) == (3, False)
    assert result.stdout == "out\nerr\n" and result.stderr == ""


def test_a_timed_out_command_has_no_exit_code(host_box: HarborSandbox) -> None:
    result = host_box.exec("echo started; sleep 300", timeout=1)
    assert result.timed_out and result.exit_code is None
    # Stopped at its timeout, not when the sleep ended (a hang guard: the machine may be loaded).
    assert result.stdout == "started\n" and result.duration < 120


def test_a_command_exiting_124_on_its_own_is_not_a_timeout(host_box: HarborSandbox) -> None:
    result = host_box.exec("exit 124", timeout=5)
    assert (result.exit_code, result.timed_out) == (124, False)



SLEEPER = "sleep 300 & sleep 301"
# A child that drops the sweep marker and leaves the session, so that only test.sh's kill stops
# it; it polls for the label and ends itself as soon as it can list the tests folder or read the
# label, which would take it off test.sh's count of what is still running. The command waits
# until the child has left (it notes its pid once it runs in its own session): ending earlier
# would let the end-of-command kill of the group catch it on its way out.
ESCAPE = ("env -u JR_EXEC_ID setsid nohup sh -c 'echo $$ > /scratch/escaped; while :; do "
          "cat /tests/label.json >/dev/null 2>&1 && exit; ls /tests >/dev/null 2>&1 && exit; "
          "sleep 0.05; done' >/dev/null 2>&1 & "
          "for i in $(seq 600); do [ -s /scratch/escaped ] && break; sleep 0.1; done; "
          "[ -s /scratch/escaped ] && echo escaped")
COUNT = (
    "ps -eo args | grep -c '^sleep 30[01]$'; "
    "touch /scratch/x && echo scratch-writable; touch ~/x && echo home-writable; "
    "for d in /logs/agent /logs/agent/judge /logs/verifier /usr/bin /; do "
    "touch $d/planted 2>/dev/null && echo planted-in-$d; done; "
    "kill -0 \"$(cat /scratch/escaped)\" 2>/dev/null && echo escaped-alive; true"
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


def test_files_are_listed_and_read_intact(host_box: HarborSandbox, tmp_path: Path) -> None:
    folder = tmp_path / "case"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "table.bin").write_bytes(bytes(range(256)))
    (folder / "notes.txt").write_text("hello\n")
    assert host_box.list_files(str(folder)) == [str(folder / "notes.txt"),
                                                str(folder / "sub" / "table.bin")]
    assert host_box.read_file(str(folder / "sub" / "table.bin")) == bytes(range(256))
    assert host_box.read_file(str(folder / "notes.txt"), max_bytes=3) == b"hel"
    with pytest.raises(FileNotFoundError):
        host_box.list_files(str(folder / "missing"))
    with pytest.raises(IsADirectoryError):
        host_box.read_file(str(folder / "sub"))


def test_kind_and_isolation_are_declared(host_box: HarborSandbox) -> None:
    assert (host_box.kind, host_box.isolated) == ("harbor", True)


@pytest.mark.docker
@pytest.mark.slow
def test_timeouts_kill_children_and_the_judge_cannot_write_outside_scratch(
    examples_dataset: Dataset, harbor_cli: Path, judge_image: str, tmp_path: Path
) -> None:
    case_ids = one_case_per_task(examples_dataset, 1)
    export_tasks(examples_dataset, case_ids, None, tmp_path / "tasks",
                 ExportOptions(image=judge_image))
    script = TimeoutScript()
    run_harbor_job(harbor_cli, tmp_path / "tasks", tmp_path / "jobs", script)
    job = tmp_path / "jobs" / "job"
    assert len(script.results) >= 4, (script.results, describe_trials(job))
    plan, slept, escaped, counted = script.results[:4]
    assert plan.startswith("plan recorded")
    assert slept.startswith("timed out after 2s"), slept
    assert counted.splitlines()[:5] == ["exit code 0", "--- stdout ---", "0",
                                        "scratch-writable", "home-writable"], counted
    assert "planted-in" not in counted, counted
    assert "escaped" in escaped
    assert "escaped-alive" in counted, counted  # it outlived its own command's end
    # The escaped child outlived the judge and was still polling, never having read the label
    # nor listed its folder, when test.sh started (which then killed it before grading).
    (trial,) = [p for p in job.iterdir() if (p / "result.json").is_file()]
    graded = (trial / "verifier" / "test-stdout.txt").read_text()
    assert re.search(r"processes of judge still running at grading: [1-9]", graded), (
        graded, describe_trials(job))
    assert (trial / "verifier" / "reward.json").is_file(), describe_trials(job)
