"""The checklist judge on its own: options checked where they enter, products per case (the
checklist as the plan, item judgments as inspections), the decision rule, errors for cases it
cannot judge, and no label read. Offline (mechanical items only): no model server involved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.checklist import read_details
from judge_runner.checklist.judge import ChecklistJudge, make_judge
from judge_runner.checklist.models import write_checklist
from judge_runner.core import Decision, Outcome
from judge_runner.judges import JudgeConfigError, JudgeOptions, build_judge, read_log
from tests.casebuilder import point_artifact_at, secrets_of
from tests.checklist import scripted
from tests.checklist.helpers import EVIDENCE_MARKER, good_items, make_checklist, write_runs
from tests.fakeapi import FakeMessagesServer


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    write_checklist(tmp_path / "cl", make_checklist(good_items()))
    return tmp_path / "cl"


def offline(folder: Path, **knobs: object) -> ChecklistJudge:
    judge = build_judge("checklist", JudgeOptions(model="offline", extra={
        "checklists": str(folder), **knobs}))
    assert isinstance(judge, ChecklistJudge)
    return judge


@pytest.mark.parametrize(("options", "message"), [
    (JudgeOptions(model="m"), "-o checklists=DIR"),
    (JudgeOptions(model="m", extra={"checklists": "/no/such/folder"}), "does not exist"),
    (JudgeOptions(extra={"checklists": "{folder}"}), "--model offline"),
    (JudgeOptions(model="offline", base_url="http://127.0.0.1:1",
                  extra={"checklists": "{folder}"}), "calls no model"),
    (JudgeOptions(model="offline", extra={"checklists": "{folder}", "threshold": 2}),
     "threshold"),
    (JudgeOptions(model="offline", skill=Path("judgeskills/v1"),
                  extra={"checklists": "{folder}"}), "does not use --skill"),
])
def test_options_are_checked_before_anything_is_judged(
        folder: Path, options: JudgeOptions, message: str) -> None:
    extra = {k: str(v).replace("{folder}", str(folder)) if isinstance(v, str) else v
             for k, v in options.extra.items()}
    with pytest.raises(JudgeConfigError, match=message.replace("-", r"\-")):
        make_judge(options.model_copy(update={"extra": extra}))


def test_a_folder_without_a_usable_checklist_is_refused(tmp_path: Path, folder: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    text = (folder / "sensor-summary.json").read_text().replace("mean_temp", "mean_tmp")
    (bad / "sensor-summary.json").write_text(text)
    with pytest.raises(JudgeConfigError, match="content hash mismatch"):
        offline(bad)


def test_products_plan_inspections_and_the_decision(folder: Path, tmp_path: Path) -> None:
    dataset = Dataset(write_runs(tmp_path / "data"))
    judge = offline(folder)
    out = tmp_path / "out"
    # a: C01 Yes (summary.json listed), C02 not judged offline, C03 Yes (CSV header), C04 not
    # judged -> raw credit 1.0, coverage 2/4
    verdict = judge.judge(dataset.case("a-without"), out)
    assert verdict.decision is Decision.PASS and verdict.score == 1.0
    assert "raw credit 1.000 ≥ threshold 0.5" in verdict.rationale
    plan = (out / "plan.md").read_text()
    assert [line.split(":")[0] for line in plan.splitlines() if line.startswith("## ")] == \
        ["## C01", "## C02", "## C03", "## C04"]
    log = read_log(out)
    assert [(i.id, i.plan_item, i.outcome) for i in log] == [
        ("I1", "C01", Outcome.SUPPORTS), ("I2", "C02", Outcome.INCONCLUSIVE),
        ("I3", "C03", Outcome.SUPPORTS), ("I4", "C04", Outcome.INCONCLUSIVE)]
    assert log[2].evidence[0].kind.value == "artifact" and log[2].evidence[0].verified
    assert verdict.citations == ["I1", "I3"]
    details = read_details(verdict.details)
    assert details is not None and details.coverage == 0.5
    assert [(i.id, i.label.value, i.source.value) for i in details.items] == [
        ("C01", "yes", "code"), ("C02", "abstain", "skipped"), ("C03", "yes", "code"),
        ("C04", "abstain", "skipped")]
    # c: C01 Yes, C03 Abstain (no CSV recovered) -> coverage 1/4; below 0.3 it abstains
    strict = offline(folder, min_coverage=0.3)
    abstained = strict.judge(dataset.case("c-without"), tmp_path / "c")
    assert abstained.decision is Decision.ABSTAIN and "coverage 0.250 is below 0.3" in \
        abstained.rationale


def test_cases_it_cannot_judge_are_errors_naming_why(folder: Path, tmp_path: Path) -> None:
    dataset = Dataset(write_runs(tmp_path / "data"))
    other = make_checklist(good_items(), task="another-task")
    write_checklist(folder, other)
    (folder / "broken-task.json").write_text("{not json")
    judge = offline(folder)
    assert judge.problems.keys() == {"broken-task"}
    case = dataset.case("a-without")
    meta = json.loads((case.root / "case.json").read_text())
    for task, reason in (("broken-task", "not a readable checklist"),
                         ("missing-task", "no checklist for task missing-task")):
        meta["task"] = task
        (case.root / "case.json").write_text(json.dumps(meta))
        fresh = Dataset(dataset.root).case("a-without")
        verdict = judge.judge(fresh, tmp_path / task)
        assert verdict.decision is Decision.ERROR and reason in (verdict.error or "")
        assert read_log(tmp_path / task) == []


def test_no_label_is_read(folder: Path, tmp_path: Path) -> None:
    """The same verdicts with the labels and verifier evidence gone."""
    root = write_runs(tmp_path / "data")
    judge = offline(folder)
    before = {c: judge.judge(Dataset(root).case(c), tmp_path / "a" / c) for c in
              Dataset(root).case_ids()}
    (root / "labels.jsonl").unlink()
    shutil.rmtree(root / "evidence")
    for case_id, verdict in before.items():
        again = judge.judge(Dataset(root).case(case_id), tmp_path / "b" / case_id)
        assert (again.decision, again.details, again.rationale) == \
            (verdict.decision, verdict.details, verdict.rationale)


def test_an_artifact_pointing_at_the_labels_is_not_read(
        fake_api: FakeMessagesServer, folder: Path, tmp_path: Path) -> None:
    root = write_runs(tmp_path / "data")
    case = Dataset(root).case("c-without")
    point_artifact_at(case.root, "../../../labels.jsonl")
    fake_api.responder = scripted.judge_responder
    judge = build_judge("checklist", JudgeOptions(model="m", base_url=fake_api.base_url,
                                                  extra={"checklists": str(folder)}))
    judge.judge(Dataset(root).case("c-without"), tmp_path / "o")
    sent = list(fake_api.requests)
    assert len(sent) == 1
    secrets = secrets_of(root)
    assert any('"label"' in s for s in secrets)  # the scan has teeth
    assert [s for s in secrets if s in sent[0].text] == []
    assert EVIDENCE_MARKER not in sent[0].text
