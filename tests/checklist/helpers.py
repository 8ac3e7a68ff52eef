"""A small hand-written task and checklist shared by the checklist tests."""

from __future__ import annotations

from pathlib import Path

from judge_runner.checklist.models import (
    Checklist,
    ChecklistItem,
    ChecklistProvenance,
    ItemKind,
    Route,
)

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


def write_task(root: Path, name: str = "sensor-summary") -> Path:
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "instruction.md").write_text(INSTRUCTION, encoding="utf-8")
    (task / "tests" / "test_outputs.py").write_text(TESTS, encoding="utf-8")
    (task / "tests" / "test.sh").write_text("pytest /tests/test_outputs.py\n", encoding="utf-8")
    return task


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


def make_checklist(items: list[ChecklistItem], task: str = "sensor-summary") -> Checklist:
    return Checklist(
        task=task,
        items=items,
        provenance=ChecklistProvenance(instruction_sha256="0" * 64, verifier_files={},
                                       rules_sha256="0" * 64),
    ).freeze()
