"""The agent judge under the concurrent run engine: many cases, one run, one prompt prefix,
and the whole run replayed with the server switched off."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.judges import Decision
from judge_runner.judges.agent import make_judge
from judge_runner.runs.runner import run_eval
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, cacheable_prefix_bytes
from tests.judges import sessions
from tests.judges.test_agent import options


def test_concurrent_run_then_replay(tmp_path: Path) -> None:
    totals = {f"case-{i}": 42 if i % 2 else 40 + i for i in range(6)}
    data: Dataset = casebuilder.summing_dataset(tmp_path / "data", totals)  # registers its secrets
    server = FakeMessagesServer().start()
    server.responder = sessions.responder_for(
        {case_id: sessions.good_session(total) for case_id, total in totals.items()})
    live = run_eval(make_judge(options(server)), data, sorted(totals), tmp_path / "run",
                    concurrency=3, progress=False, write_reports=False)
    server.stop()
    decisions = {r.case_id: r.decision for r in live.records}
    assert decisions == {c: Decision.PASS if t == 42 else Decision.FAIL
                         for c, t in totals.items()}
    assert len({cacheable_prefix_bytes(b) for b in server.bodies}) == 1
    assert len(server.bodies) == 6 * len(totals)

    replayer = make_judge(options(None).model_copy(update={"replay": tmp_path / "run"}))
    again = run_eval(replayer, data, sorted(totals), tmp_path / "replayed", concurrency=3,
                     progress=False, write_reports=False)
    assert {r.case_id: r.decision for r in again.records} == decisions
