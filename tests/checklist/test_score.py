"""Scorer evidence rules against the fake Messages server, and frozen-checklist loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.checklist.evidence import (
    ExecutionLog,
    decisive_number,
    load_log,
    plausible_wrong,
)
from judge_runner.checklist.models import (
    ChecklistLoadError,
    EvidenceCite,
    Label,
    read_checklist,
    write_checklist,
)
from judge_runner.checklist.score import ChecklistScorer, render_log
from judge_runner.models import AnthropicClient, RetryPolicy
from tests.checklist.helpers import good_items, make_checklist, write_runs
from tests.fakeapi.server import FakeMessagesServer, http_error, reply, tool_use


def _log(tmp_path: Path, case: str = "a-without") -> ExecutionLog:
    return load_log(Dataset(write_runs(tmp_path / "d")).case(case))


def test_uncited_and_missing_judgments_abstain(fake_api: FakeMessagesServer,
                                               tmp_path: Path) -> None:
    # C02 and C04 are the model items of good_items. C04 cites a quote that is not in the log
    # -> Abstain ("uncited"), never a Yes; C02 cites a real quote and stands.
    fake_api.push(reply(tool_use("record_judgments", {"judgments": [
        {"item_id": "C02", "label": "yes", "reason": "r",
         "evidence": [{"kind": "artifact", "ref": "/root/out/summary.json",
                       "quote": '"mean_temp": 21.5'}]},
        {"item_id": "C04", "label": "yes", "reason": "r",
         "evidence": [{"kind": "step", "ref": "1", "quote": "all tests green"}]}]})))
    scorer = ChecklistScorer(AnthropicClient(base_url=fake_api.base_url), "m")
    result = scorer.score(_log(tmp_path), make_checklist(good_items()))
    c04 = {j.item_id: j for j in result.judgments}["C04"]
    assert c04.label is Label.ABSTAIN and c04.reason.startswith("uncited yes")
    assert c04.evidence[0].verified is False
    c02 = {j.item_id: j for j in result.judgments}["C02"]
    assert c02.label is Label.YES and c02.evidence[0].verified is True


def test_repair_turn_for_missing_items(fake_api: FakeMessagesServer, tmp_path: Path) -> None:
    c02 = {"item_id": "C02", "label": "abstain", "reason": "not shown"}
    fake_api.push(reply(tool_use("record_judgments", {"judgments": [c02]})),
                  reply(tool_use("record_judgments", {"judgments": [c02,
                      {"item_id": "C04", "label": "no", "reason": "r",
                       "evidence": [{"kind": "step", "ref": "1", "quote": "wrote 3 rows"}]}]})))
    scorer = ChecklistScorer(AnthropicClient(base_url=fake_api.base_url), "m")
    result = scorer.score(_log(tmp_path), make_checklist(good_items()))
    assert {j.item_id: j.label for j in result.judgments}["C04"] is Label.NO
    second = fake_api.bodies[1]["messages"][-1]["content"][0]
    assert second["type"] == "tool_result" and "C04" in second["content"]


def test_model_failure_is_a_case_error_not_a_no(fake_api: FakeMessagesServer,
                                                tmp_path: Path) -> None:
    fake_api.push(http_error(400, message="bad request"))
    client = AnthropicClient(base_url=fake_api.base_url, retry=RetryPolicy(max_attempts=1))
    result = ChecklistScorer(client, "m").score(_log(tmp_path), make_checklist(good_items()))
    assert result.error is not None and result.judgments == []


def test_render_log_keeps_head_and_tail_within_budget(tmp_path: Path) -> None:
    log = _log(tmp_path)
    long = log.__class__(case_id="x", task="t", steps=tuple(f"step text {i} " * 50
                                                              for i in range(200)),
                         final_message="done", artifacts=())
    text = render_log(long, max_chars=20_000)
    assert len(text) <= 20_000
    assert "[step 0]" in text and "[step 199]" in text and "steps not shown" in text


def test_perturbation_values() -> None:
    assert decisive_number('"mean_temp": 21.5.') == "21.5"
    assert decisive_number("no digits here") is None
    assert plausible_wrong("21.5") == "24.3"
    assert plausible_wrong("3") == "4"
    assert plausible_wrong("0") == "1"
    assert plausible_wrong("-2.00") == "-2.26"


def test_edited_checklist_is_refused(tmp_path: Path) -> None:
    path = write_checklist(tmp_path, make_checklist(good_items()))
    assert read_checklist(path).is_frozen
    data = json.loads(path.read_text())
    data["items"][0]["weight"] = 3.0
    path.write_text(json.dumps(data))
    with pytest.raises(ChecklistLoadError, match="hash mismatch"):
        read_checklist(path)


def test_report_quote_backs_only_a_claim_trace_no(fake_api: FakeMessagesServer,
                                                  tmp_path: Path) -> None:
    # The claim "mean_temp is 21.5" is quoted from the final report. For the claim-versus-trace
    # item (C04) a No resting on it stands: an unbacked claim cannot be shown any other way. For
    # a requirement (C02) the run's own words back nothing: Yes becomes Abstain.
    report_cite = {"kind": "report", "ref": "final", "quote": "mean_temp is 21.5"}
    fake_api.push(reply(tool_use("record_judgments", {"judgments": [
        {"item_id": "C02", "label": "yes", "reason": "the report says so",
         "evidence": [report_cite]},
        {"item_id": "C04", "label": "no", "reason": "claim without a trace entry",
         "evidence": [report_cite]}]})))
    scorer = ChecklistScorer(AnthropicClient(base_url=fake_api.base_url), "m")
    result = {j.item_id: j for j in
              scorer.score(_log(tmp_path), make_checklist(good_items())).judgments}
    assert result["C04"].label is Label.NO and result["C04"].evidence[0].verified is True
    assert result["C02"].label is Label.ABSTAIN
    assert result["C02"].reason.startswith("uncited yes: no verified quote of the trace")
    assert result["C02"].evidence[0].verified is True  # found, but not evidence for a Yes


def test_report_quote_that_is_not_in_the_report_does_not_verify(tmp_path: Path) -> None:
    log = _log(tmp_path)
    found = log.verify(EvidenceCite(kind="report", ref="final", quote="mean_temp is 21.5"))
    absent = log.verify(EvidenceCite(kind="report", ref="final", quote="mean_temp is 22.0"))
    assert found.verified is True and absent.verified is False
    changed = log.perturbed(found)
    assert changed is not None
    new_log, old, new = changed
    assert (old, new) == ("21.5", "24.3")
    assert new_log.final_message is not None and "mean_temp is 24.3" in new_log.final_message


def test_an_artifact_pointing_outside_the_package_is_never_shown(tmp_path: Path) -> None:
    """case.json is data: a stored_as that climbs out to the labels is not read into the log."""
    from judge_runner.cases import ArtifactProvenance, ArtifactRecord, CasePackage

    root = write_runs(tmp_path / "d")
    case_dir = root / "cases" / "a-without"
    secret = "LABEL-LINE-THAT-MUST-NOT-SHOW"
    (root / "labels.jsonl").write_text(secret + "\n")
    meta = CasePackage(case_dir).meta
    escaping = ArtifactRecord(path="/root/x.txt", stored_as="../../../labels.jsonl",
                              provenance=ArtifactProvenance.COPIED)
    (case_dir / "case.json").write_text(
        meta.model_copy(update={"artifacts": [*meta.artifacts, escaping]}).model_dump_json())
    log = load_log(CasePackage(case_dir))
    assert all(secret not in (a.text or "") for a in log.artifacts)
