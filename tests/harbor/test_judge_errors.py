"""A judge that fails inside Harbor gives an error result: no reward, an `error` verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.harbor import layout
from judge_runner.harbor.collect import collect_job
from judge_runner.harbor.export import ExportOptions, export_tasks
from judge_runner.judges import Decision
from tests.fakeapi.server import http_error
from tests.harbor.conftest import one_case_per_task, run_harbor_job

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_a_failing_model_gives_no_reward_and_an_error_verdict(
    examples_dataset: Dataset, harbor_cli: Path, judge_image: str, tmp_path: Path
) -> None:
    case_ids = one_case_per_task(examples_dataset, 1)
    tasks = tmp_path / "tasks"
    export_tasks(examples_dataset, case_ids, None, tasks, ExportOptions(image=judge_image))
    # A non-retryable answer: the judge ends the case as an error at its first call.
    run_harbor_job(harbor_cli, tasks, tmp_path / "jobs",
                   lambda request: http_error(400, message="scripted refusal"))
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
