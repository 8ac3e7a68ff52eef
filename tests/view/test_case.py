"""Citation resolution on the case view: every evidence kind lands where it should."""

from __future__ import annotations

import shutil
from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.judges import LOG_FILE, PLAN_FILE, shown_folder
from judge_runner.runs.records import CASES_OUT
from judge_runner.runs.runner import RunResult
from judge_runner.view.case import CaseView, anchor, build_case_view
from tests.view import runs


def _view(result: RunResult, dataset: Dataset, case_id: str) -> CaseView:
    record = next(r for r in result.records if r.case_id == case_id)
    return build_case_view(record, dataset.case(case_id), result.run_dir / CASES_OUT / case_id)


def test_every_evidence_kind_resolves_to_its_element(citing: RunResult, hostile: Dataset) -> None:
    view = _view(citing, hostile, "case-0")
    [inspection] = view.inspections
    step, artifact, instruction, skill, missing, unverified = inspection.evidence
    mark = step.target.href
    assert mark is not None and mark.startswith("#q-")
    step_one = view.steps[1]
    assert step_one.output is not None
    [span] = [s for s in step_one.output.spans if f"#{s.anchor}" == mark]
    assert step_one.output.text[span.start:span.end] == runs.OUTPUT_QUOTE
    assert artifact.target.href == "#art-0-L2" and view.artifacts[0].quoted == {2}
    assert instruction.target.href == "#instruction"
    assert skill.target.href == "#skill-checking"
    assert missing.target.href is None and "no such step" in missing.target.note
    assert unverified.status == "unverified"
    assert unverified.target.href == "#step-0" and "not found" in unverified.target.note
    assert view.n_unverified == 1


def test_verdict_citations_link_inspections_or_show_as_unresolved(
    citing: RunResult, hostile: Dataset
) -> None:
    view = _view(citing, hostile, "case-1")
    assert [(t.label, t.href) for t in view.citations] == [("I1", "#insp-I1"), ("I9", None)]


def test_artifacts_link_their_producing_steps_and_back(citing: RunResult,
                                                       hostile: Dataset) -> None:
    view = _view(citing, hostile, "case-0")
    assert [t.href for t in view.artifacts[0].producers] == ["#step-3"]
    assert [t.href for t in view.steps[3].touched] == ["#art-0"]


def test_agent_calls_come_from_the_transcript_and_quotes_mark_their_output(
    agent: RunResult, examples_dataset: Dataset
) -> None:
    case_id = agent.records[0].case_id
    view = _view(agent, examples_dataset, case_id)
    assert [c.call.id for c in view.calls] == ["tu_bash_artifact", "tu_bash_final"]
    # each tool result opens with the call id the judge was shown, then the command's result
    # (the line after the call id opens the case's fence)
    assert all(c.output and c.output.text.removeprefix(f"call id: {c.call.id}\n")
               .split("\n", 1)[1].startswith("exit code 0") for c in view.calls)
    first, second, third = (i.evidence[0] for i in view.inspections)
    assert first.status == second.status == "verified"
    assert first.target.href is not None and first.target.href.startswith("#q-")
    # the artifact the command printed is linked as well
    assert any(t.href and t.href.startswith("#art-") for t in first.also)
    assert third.status == "unverified" and third.target.href == "#call-tu_bash_final"
    assert third.target.note == "quote not found in this output"


def test_anchors_are_safe_and_distinct() -> None:
    a, b = anchor("call", "x y"), anchor("call", "x_y")
    assert a != b and b == "call-x_y"
    assert all(ch.isalnum() or ch in "-_" for ch in a)


def test_a_cascade_case_links_the_calls_of_the_stage_it_shows(
    agent: RunResult, examples_dataset: Dataset, tmp_path: Path
) -> None:
    """A cascade keeps each stage's transcript under stages/<dir>/ and copies the last stage's
    plan and log up: the case page finds that stage's calls."""
    record = agent.records[0]
    judged = agent.run_dir / CASES_OUT / record.case_id
    folder = tmp_path / record.case_id
    shutil.copytree(judged, folder / "stages" / "2-agent")
    for name in (PLAN_FILE, LOG_FILE):
        shutil.copyfile(judged / name, folder / name)
    stages = [{"stage": "rules", "dir": "stages/1-rules"}, {"stage": "agent",
                                                          "dir": "stages/2-agent"}]
    verdict = record.verdict.model_copy(update={
        "judge": "cascade", "details": {**record.verdict.details, "stage": "agent",
                                        "stages": stages}})
    cascade = record.model_copy(update={"verdict": verdict})
    view = build_case_view(cascade, examples_dataset.case(record.case_id), folder)
    assert [c.call.id for c in view.calls] == ["tu_bash_artifact", "tu_bash_final"]
    # a stage folder that would leave the case folder is not followed
    stray = verdict.model_copy(update={"details": {
        "stage": "agent", "stages": [{"stage": "agent", "dir": "../elsewhere"}]}})
    assert shown_folder(folder, stray) == folder
