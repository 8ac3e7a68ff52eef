"""`harbor jobs resume` after the job's process was killed finishes only the remaining cases, for
tasks of both kinds. The prebuilt job uploads its cases with the environment's own upload (the
end-to-end tests send them inside JudgeAgent's setup command), so both ways run through Harbor."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.harbor.collect import collect_job
from judge_runner.harbor.export import ExportOptions, TaskBuild, export_tasks
from judge_runner.skills import load_skill
from tests.fakeapi.server import FakeMessagesServer
from tests.harbor.conftest import (
    SKILL,
    harbor_env,
    harbor_run_argv,
    one_case_per_task,
    remove_trial_leftovers,
)
from tests.harbor.scripted import ScriptedJudge, case_id_of

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _finished(job: Path) -> dict[str, bytes]:
    """result.json bytes of every finished trial, by trial folder name."""
    return {p.parent.name: p.read_bytes() for p in sorted(job.glob("*/result.json"))}


def _requests_per_case(server: FakeMessagesServer) -> dict[str, int]:
    counts: dict[str, int] = {}
    for body in server.bodies:
        case_id = case_id_of(body)
        counts[case_id] = counts.get(case_id, 0) + 1
    return counts


@pytest.mark.parametrize("build", list(TaskBuild), ids=[b.value for b in TaskBuild])
def test_resume_after_a_killed_job_finishes_the_remaining_cases_only(
    build: TaskBuild, examples_dataset: Dataset, harbor_cli: Path, judge_image: str,
    tmp_path: Path
) -> None:
    case_ids = one_case_per_task(examples_dataset, 3)
    tasks = tmp_path / "tasks"
    export_tasks(examples_dataset, case_ids, load_skill(SKILL), tasks,
                 ExportOptions(image=judge_image, build=build))
    job = tmp_path / "jobs" / "job"
    server = FakeMessagesServer().start()
    server.responder = ScriptedJudge(dict.fromkeys(case_ids, "fail"))
    try:
        # One trial at a time, so the kill lands between cases.
        harbor = subprocess.Popen(
            harbor_run_argv(harbor_cli, tasks, tmp_path / "jobs", "job", server.base_url,
                            concurrency=1, agent_kwargs=(
                                ("inline_upload_bytes=0",) if build is TaskBuild.PREBUILT
                                else ())),
            cwd=tmp_path, env=harbor_env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 300
        while not _finished(job) and harbor.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        os.killpg(harbor.pid, signal.SIGKILL)  # the whole job, its compose calls included
        harbor.wait(timeout=30)
        before = _finished(job)
        assert 1 <= len(before) < len(case_ids), "the kill should land mid-job"
        requests_before = _requests_per_case(server)
        done_cases = {name.rsplit("__", 1)[0] for name in before}

        resumed = subprocess.run([str(harbor_cli), "jobs", "resume", "-p", str(job)],
                                 cwd=tmp_path, env=harbor_env(), capture_output=True,
                                 text=True, timeout=900)
        assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    finally:
        server.stop()
        remove_trial_leftovers(tasks)

    after = _finished(job)
    assert len(after) == len(case_ids)
    for name, result in before.items():  # finished trials were kept as they were
        assert after[name] == result
    requests_after = _requests_per_case(server)
    for case_id in case_ids:
        if any(case_id.startswith(prefix) for prefix in done_cases):
            assert requests_after[case_id] == requests_before[case_id], case_id  # not re-judged
        else:
            assert requests_after.get(case_id, 0) > requests_before.get(case_id, 0), case_id
    collected = collect_job(job, tmp_path / "run", write_reports=False)
    assert collected.skipped == {}
    assert sorted(r.case_id for r in collected.records) == case_ids
    assert all(r.decision.value == "fail" for r in collected.records)
