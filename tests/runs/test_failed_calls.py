"""Failed model calls and their retries reach metrics.json and both reports (a real direct
judge against the scripted Messages server: one case answered, one failing 6 times)."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.judges.direct import make_judge
from judge_runner.judges.registry import JudgeOptions
from judge_runner.runs.records import load_summary
from judge_runner.runs.runner import run_eval
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, Reply, http_error, reply, tool_use


def test_failed_calls_and_all_their_retries_are_counted_and_shown(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    data: Dataset = casebuilder.summing_dataset(tmp_path / "data", {"c-ok": 42, "c-down": 41})

    def answer(request: ReceivedRequest) -> Reply | object:
        if '\\"total\\": 41' in request.text:  # the digest of c-down, JSON-escaped
            return http_error(503)
        return reply(tool_use("submit_verdict", {"decision": "pass", "rationale": "42"}))

    fake_api.responder = answer  # type: ignore[assignment]
    judge = make_judge(JudgeOptions(model="claude-test", base_url=fake_api.base_url, extra={
        "retry": {"initial_wait_s": 0, "jitter_s": 0, "max_wait_s": 0, "max_attempts": 6}}))
    run = tmp_path / "run"
    result = run_eval(judge, data, data.case_ids(), run, progress=False, concurrency=1)

    by_case = {r.case_id: r.verdict for r in result.records}
    assert by_case["c-down"].usage.failed_calls == 1
    assert by_case["c-down"].usage.retries == 5  # before: 0
    summary = load_summary(run)
    assert (summary.usage.calls, summary.usage.failed_calls, summary.usage.retries) == (1, 1, 5)
    markdown = (run / "report.md").read_text()
    assert "1 answered, 1 failed for good, 5 retries" in markdown
    assert "| `c-down` | error |" in markdown
    html = (run / "report.html").read_text()
    assert "failed model calls / retries</td><td>1 / 5</td>" in html
    assert "1 failed call(s)" in html
