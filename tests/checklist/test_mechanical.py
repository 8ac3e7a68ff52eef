"""Mechanical checks: decided by code from the recovered artifacts; what is not recovered is
missing evidence (Abstain), never a No."""

from __future__ import annotations

from judge_runner.checklist.evidence import ArtifactView, ExecutionLog
from judge_runner.checklist.mechanical import run_check
from judge_runner.checklist.models import (
    ArtifactContains,
    ArtifactExists,
    CsvColumns,
    JsonValue,
    JudgmentSource,
    Label,
)

LOG = ExecutionLog(
    case_id="c", task="t",
    # The run wrote /root/out/report.json through a script: the importer cannot list it.
    steps=("tool_call tool=Bash exit=0\narguments: {\"command\": \"python3 make_report.py\"}",),
    final_message="Wrote /root/out/report.json",
    artifacts=(
        ArtifactView("/root/out/summary.json", '{"days": 3, "mean_temp": 21.5}\n', "copied"),
        ArtifactView("/root/out/table.csv", "day,temp\n1,20.5\n", "reconstructed"),
        ArtifactView("/root/out/notes.txt", None, "written by the agent; content not recovered"),
    ),
)


def label(check: ArtifactExists | ArtifactContains | JsonValue | CsvColumns) -> Label:
    judgment = run_check("C01", check, LOG)
    assert judgment.source is JudgmentSource.CODE
    return judgment.label


def test_unlisted_artifact_is_missing_evidence_not_a_no() -> None:
    for check in (ArtifactExists(path="/root/out/report.json"),
                  ArtifactContains(path="/root/out/report.json", text="total"),
                  JsonValue(path="/root/out/report.json", pointer="/total", value=1),
                  CsvColumns(path="/root/out/report.csv", columns=["a"])):
        judgment = run_check("C01", check, LOG)
        assert judgment.label is Label.ABSTAIN, check
        assert "not among the recovered artifacts" in judgment.reason


def test_listed_artifact_without_content() -> None:
    assert label(ArtifactExists(path="/root/out/notes.txt")) is Label.YES
    assert label(ArtifactContains(path="/root/out/notes.txt", text="x")) is Label.ABSTAIN


def test_checks_on_recovered_content() -> None:
    assert label(JsonValue(path="/root/out/summary.json", pointer="/mean_temp", value=21.5)) \
        is Label.YES
    assert label(JsonValue(path="/root/out/summary.json", pointer="/mean_temp", value=21.0,
                           tolerance=0.4)) is Label.NO
    assert label(JsonValue(path="/root/out/summary.json", pointer="/missing", value=1)) \
        is Label.NO
    assert label(ArtifactContains(path="summary.json", text='"days": 3')) is Label.YES
    assert label(CsvColumns(path="/root/out/table.csv", columns=["day", "temp"])) is Label.YES
    assert label(CsvColumns(path="/root/out/table.csv", columns=["day", "hour"])) is Label.NO
