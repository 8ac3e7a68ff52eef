"""A judge that fails inside Harbor gives an error result: no reward, an `error` verdict."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from judge_runner.cases.dataset import Dataset
from judge_runner.harbor import layout
from judge_runner.harbor.collect import collect_job
from judge_runner.harbor.export import ExportOptions, export_tasks
from judge_runner.judges.base import Decision
from tests.fakeapi.server import FakeMessagesServer, http_error
from tests.harbor.conftest import (
    harbor_env,
    harbor_run_argv,
    one_case_per_task,
    remove_trial_leftovers,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_a_failing_model_gives_no_reward_and_an_error_verdict(
    examples_dataset: Dataset, harbor_cli: Path, judge_image: str, tmp_path: Path
) -> None:
    case_ids = one_case_per_task(examples_dataset, 1)
    tasks = tmp_path / "tasks"
    export_tasks(examples_dataset, case_ids, None, tasks, ExportOptions(image=judge_image))
    server = FakeMessagesServer().start()
    # A non-retryable answer: the judge ends the case as an error at its first call.
    server.responder = lambda request: http_error(400, message="scripted refusal")
    try:
        run = subprocess.run(harbor_run_argv(harbor_cli, tasks, tmp_path / "jobs", "job",
                                             server.base_url, concurrency=1),
                             cwd=tmp_path, env=harbor_env(), capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, run.stdout[-3000:]
    finally:
        server.stop()
        remove_trial_leftovers(case_ids)
    (trial,) = [p for p in (tmp_path / "jobs" / "job").iterdir() if (p / "result.json").is_file()]
    result = json.loads((trial / "result.json").read_text())
    assert result["verifier_result"] is None  # no reward at all, not a 0
    assert result["exception_info"]["exception_type"] == "RewardFileNotFoundError"
    assert not (trial / "verifier" / "reward.json").exists()
    details = json.loads((trial / "verifier" / layout.DETAILS_FILE).read_text())
    assert details["decision"] is None and "judge error" in details["error"]
    collected = collect_job(tmp_path / "jobs" / "job", tmp_path / "run", write_reports=False)
    (record,) = collected.records
    assert record.decision is Decision.ERROR and record.correct is None
    assert "scripted refusal" in str(record.verdict.error)
    assert collected.summary.metrics is not None and collected.summary.metrics.n_error == 1
