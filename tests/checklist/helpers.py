"""A small hand-written task, four runs of it and a checklist, shared by the checklist tests.

Runs (with/without skills, official outcome):
  a-without, b-with: correct summary.json and summary.csv, trace shows the write.
  c-without: wrong values, no CSV, a crash in the trace, and a final report that claims
             files the trace never wrote.
  d-with: right day count and CSV, wrong mean_temp.
Verifier evidence with a marker string sits in evidence/ (outside cases/), as the real layout.
"""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Label, Step
from judge_runner.checklist.models import (
    Checklist,
    ChecklistItem,
    ChecklistProvenance,
    ItemKind,
    Route,
)
from tests.casebuilder import bash, build_case

TASK = "sensor-summary"
INSTRUCTION = """Convert the sensor readings in `/root/data/readings.csv` into a daily summary.

Write the summary to `/root/out/summary.json` with the keys `days` and `mean_temp`.
The value of `mean_temp` must be rounded to two decimals.
Also write a CSV copy to `/root/out/summary.csv`
with the columns `day` and `temp`.
"""

TESTS = '''
import json


def test_summary_exists():
    assert open("/root/out/summary.json")


class TestValues:
    def test_mean_temp(self):
        assert json.load(open("/root/out/summary.json"))["mean_temp"] == 21.5

    def test_days(self):
        assert json.load(open("/root/out/summary.json"))["days"] == 3


def helper():
    return 1
'''


def write_task(root: Path, name: str = TASK) -> Path:
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "instruction.md").write_text(INSTRUCTION, encoding="utf-8")
    (task / "tests" / "test_outputs.py").write_text(TESTS, encoding="utf-8")
    (task / "tests" / "test.sh").write_text("pytest /tests/test_outputs.py\n", encoding="utf-8")
    return task


EVIDENCE_MARKER = "VERIFIER-EVIDENCE-7f3a"
GOOD_JSON = '{"days": 3, "mean_temp": 21.5}\n'
CSV = "day,temp\n1,20.5\n2,21.5\n3,22.5\n"
SKILL_MD = "---\nname: summaries\ndescription: daily sensor summaries\n---\nGroup by day.\n"
CLAIM = "Wrote /root/out/summary.json and /root/out/summary.csv; mean_temp is 21.5."
RUNS = {
    # case id: (with_skills, label, summary.json text, csv text or None, trace ok)
    "a-without": (False, Label.PASS, GOOD_JSON, CSV, True),
    "b-with": (True, Label.PASS, GOOD_JSON, CSV, True),
    "c-without": (False, Label.FAIL, '{"days": 2, "mean_temp": 19.0}\n', None, False),
    "d-with": (True, Label.FAIL, '{"days": 3, "mean_temp": 22.0}\n', CSV, True),
}


def trace_texts() -> list[str]:
    """Distinctive text of every run's trajectory and artifacts (must never reach a
    synthesizer)."""
    return [CLAIM, GOOD_JSON.strip(), "wrote 3 rows to /root/out/summary.csv",
            "KeyError: 'temp'", "day,hour,temp"]


def write_runs(root: Path) -> Path:
    """The four runs as a labelled dataset at `root`."""
    for case_id, (with_skills, label, js, csv_text, ok) in RUNS.items():
        files = {"/root/out/summary.json": js}
        if csv_text is not None:
            files["/root/out/summary.csv"] = csv_text
        outcome = "PASSED" if label is Label.PASS else "FAILED"
        build_case(root, _steps(ok), case_id=case_id, task=TASK, instruction=INSTRUCTION,
                   subtype=None, count_turns=False, final_message=CLAIM, model="m",
                   skills={"summaries": SKILL_MD} if with_skills else {}, artifacts=files,
                   label=label, evidence={"test-stdout.txt": f"{EVIDENCE_MARKER} test_mean_temp "
                                                             f"{outcome}"})
    return root


def _steps(ok: bool) -> list[Step]:
    first = bash("head /root/data/readings.csv", "day,hour,temp\n1,0,20.1\n1,1,20.9",
                 exit_code=None)
    if ok:
        return [first, bash("python summarize.py", "wrote 3 rows to /root/out/summary.csv")]
    return [first, bash("python summarize.py",
                        "Traceback (most recent call last): KeyError: 'temp'", exit_code=1)]


def item(n: int, **kw: object) -> ChecklistItem:
    base: dict[str, object] = {
        "id": f"C{n:02d}",
        "order": n,
        "requirement": f"requirement number {n} holds for the summary file",
        "quote": None,
        "route": Route.JUDGE,
    }
    base.update(kw)
    return ChecklistItem.model_validate(base)


def good_items() -> list[ChecklistItem]:
    return [
        item(1, requirement="The summary JSON file exists at /root/out/summary.json",
             quote="Write the summary to `/root/out/summary.json`",
             verifier_ref="test_summary_exists", route=Route.ASSERTION,
             check={"kind": "artifact_exists", "path": "/root/out/summary.json"}),
        item(2, requirement="mean_temp in the summary equals the daily mean rounded to 2 decimals",
             quote="The value of `mean_temp` must be rounded to two decimals.",
             verifier_ref="TestValues::test_mean_temp", route=Route.ASSERTION),
        item(3, requirement="The CSV copy has the columns day and temp",
             quote="Also write a CSV copy to `/root/out/summary.csv` with the columns",
             route=Route.GENERATED,
             check={"kind": "csv_columns", "path": "/root/out/summary.csv",
                    "columns": ["day", "temp"]}),
        item(4, requirement="Every claim in the final report matches an entry in the trace",
             route=Route.JUDGE, kind=ItemKind.CLAIM_TRACE),
    ]


def make_checklist(items: list[ChecklistItem], task: str = TASK) -> Checklist:
    return Checklist(
        task=task,
        items=items,
        provenance=ChecklistProvenance(instruction_sha256="0" * 64, verifier_files={},
                                       rules_sha256="0" * 64),
    ).freeze()
