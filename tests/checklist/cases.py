"""A small dataset of four runs of the helpers task, built from the case package models.

Runs (with/without skills, official outcome):
  a-without, b-with: correct summary.json and summary.csv, trace shows the write.
  c-without: wrong values, no CSV, a crash in the trace, and a final report that claims
             files the trace never wrote.
  d-with: right day count and CSV, wrong mean_temp.
Verifier evidence with a marker string sits in evidence/ (outside cases/), as the real layout.
"""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import (
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    write_case,
)
from tests.checklist.helpers import INSTRUCTION

TASK = "sensor-summary"
EVIDENCE_MARKER = "VERIFIER-EVIDENCE-7f3a"
GOOD_JSON = '{"days": 3, "mean_temp": 21.5}\n'
CSV = "day,temp\n1,20.5\n2,21.5\n3,22.5\n"
SKILL_MD = "---\nname: summaries\ndescription: daily sensor summaries\n---\nGroup by day.\n"
CLAIM = "Wrote /root/out/summary.json and /root/out/summary.csv; mean_temp is 21.5."


def _steps(ok: bool) -> list[Step]:
    first = Step(index=0, kind=StepKind.TOOL_CALL, tool="Bash", tool_use_id="call-0",
                 arguments={"command": "head /root/data/readings.csv"},
                 output="day,hour,temp\n1,0,20.1\n1,1,20.9")
    if ok:
        second = Step(index=1, kind=StepKind.TOOL_CALL, tool="Bash", tool_use_id="call-1",
                      arguments={"command": "python summarize.py"},
                      output="wrote 3 rows to /root/out/summary.csv", exit_code=0)
    else:
        second = Step(index=1, kind=StepKind.TOOL_CALL, tool="Bash", tool_use_id="call-1",
                      arguments={"command": "python summarize.py"},
                      output="Traceback (most recent call last): KeyError: 'temp'",
                      is_error=True, exit_code=1)
    return [first, second]


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
    texts = [CLAIM, GOOD_JSON.strip(), "wrote 3 rows to /root/out/summary.csv",
             "KeyError: 'temp'", "day,hour,temp"]
    return texts


def write_dataset(root: Path) -> Path:
    for case_id, (with_skills, label, js, csv_text, ok) in RUNS.items():
        files = {"/root/out/summary.json": js}
        if csv_text is not None:
            files["/root/out/summary.csv"] = csv_text
        trajectory = Trajectory(case_id=case_id, source_format="test", steps=_steps(ok),
                                final_message=CLAIM,
                                termination=Termination(status=TerminationStatus.COMPLETED))
        write_case(root, task=TASK, instruction=INSTRUCTION, trajectory=trajectory,
                   source=Source(trial_path=f"trials/{case_id}", trial_name=case_id, model="m",
                                 transcript_format="test"),
                   skills={"summaries": {"SKILL.md": SKILL_MD}} if with_skills else None,
                   artifacts=files,
                   label=LabelRecord(case_id=case_id, label=label,
                                     reward=1.0 if label is Label.PASS else 0.0))
        evidence = root / "evidence" / case_id
        evidence.mkdir(parents=True)
        (evidence / "test-stdout.txt").write_text(
            f"{EVIDENCE_MARKER} test_mean_temp {'PASSED' if label is Label.PASS else 'FAILED'}",
            encoding="utf-8")
    return root
