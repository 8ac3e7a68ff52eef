"""No label or verifier evidence in any request a model received.

The session-wide check lives in `conftest.py` (it scans every request of the whole suite at the
end). These tests prove the detector is not vacuous and run it once over what was sent so far.
"""

from __future__ import annotations

from pathlib import Path

import httpx2

from judge_runner.cases import Dataset
from tests import casebuilder
from tests.casebuilder import secrets_of
from tests.fakeapi import ALL_REQUESTS, FakeMessagesServer
from tests.judges.conftest import judge_requests, leaked


def test_secrets_cover_labels_and_private_evidence(dataset: Dataset) -> None:
    secrets = secrets_of(dataset.root)
    assert any('"label":"fail"' in s.replace(" ", "") for s in secrets)
    assert casebuilder.summing_evidence("c-fail").strip() in secrets


def test_examples_register_their_secrets(examples: Dataset) -> None:
    secrets = secrets_of(examples.root)
    assert len([s for s in secrets if '"label"' in s]) == len(examples.case_ids())
    assert set(secrets) <= set(casebuilder.SECRETS)


def test_detector_finds_a_planted_leak(fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    planted = "PLANTED-SECRET-7f3a9 verifier says FAILED"
    body = {"tools": [{"name": "submit_verdict"}], "messages": [{"content": planted}]}
    httpx2.post(f"{fake_api.base_url}/v1/other", json=body, timeout=5)
    assert leaked([planted], list(fake_api.requests)) == [(planted, "/v1/other")]
    assert leaked([planted]) == [(planted, "/v1/other")]  # seen by the suite-wide scan too
    ALL_REQUESTS[:] = [r for r in ALL_REQUESTS if planted not in r.text]  # not a real leak


def test_nothing_leaked_so_far(dataset: Dataset) -> None:
    assert leaked(list(casebuilder.SECRETS)) == []


def test_judge_requests_are_recognised(fake_api: FakeMessagesServer, dataset: Dataset,
                                       tmp_path: Path) -> None:
    from judge_runner.judges.direct import make_judge
    from judge_runner.judges.registry import JudgeOptions
    from tests.fakeapi import reply, tool_use

    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r"})))
    make_judge(JudgeOptions(model="m", base_url=fake_api.base_url)).judge(
        dataset.case("c-fail"), tmp_path / "o")
    assert fake_api.requests[0] in judge_requests()


def test_an_artifact_pointing_at_the_labels_is_not_read_by_any_one_call_judge(
    fake_api: FakeMessagesServer, dataset: Dataset, tmp_path: Path
) -> None:
    from judge_runner.judges import direct, multi, rubric
    from judge_runner.judges.registry import JudgeOptions
    from tests.fakeapi import reply, tool_use

    case = dataset.case("c-fail")
    casebuilder.point_artifact_at(case.root, "../../../labels.jsonl")
    secrets = secrets_of(dataset.root)
    options = JudgeOptions(model="m", models=["m1", "m2"], base_url=fake_api.base_url)
    verdict_call = reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "r"}))
    fake_api.push(verdict_call)
    direct.make_judge(options).judge(case, tmp_path / "direct")
    fake_api.push(
        reply(tool_use("submit_rubric", {"criteria": [
            {"id": "R1", "criterion": "c", "how_to_check": "h", "critical": True}]})),
        reply(tool_use("submit_grades", {"grades": [{"id": "R1", "grade": "met",
                                                     "evidence": "e"}],
                                         "decision": "pass", "rationale": "r"})))
    rubric.make_judge(options).judge(case, tmp_path / "rubric")
    fake_api.push(verdict_call, verdict_call)
    multi.make_judge(options).judge(case, tmp_path / "multi")
    sent = list(fake_api.requests)
    assert len(sent) == 5
    assert leaked(secrets, sent) == []
    assert all('"label"' not in r.text for r in sent)
    assert "not a file inside artifacts/" in fake_api.bodies[0]["messages"][0]["content"]
