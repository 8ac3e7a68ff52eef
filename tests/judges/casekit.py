"""Building small case datasets on disk for judge tests, through the case package models.

Each case carries a label and verifier evidence outside `cases/` holding distinctive marker
text, registered in SECRETS as the dataset is built, so the suite-level guard in conftest.py
can assert that none of it ever reached a model.
"""

from __future__ import annotations

import json
from pathlib import Path

from judge_runner.cases import (
    CaseMeta,
    Dataset,
    Domain,
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    append_labels,
    write_case,
)

INSTRUCTION = (
    "Sum the numbers in /root/input.txt and write /root/out.json as {\"total\": <sum>}.\n"
)
# Label lines and evidence texts of every dataset built in this test session (see conftest).
SECRETS: list[str] = []


def secrets_of(dataset_root: Path) -> list[str]:
    """Label lines, and evidence lines (≥ 16 characters) of a dataset on disk.

    An evidence line that also occurs in the case package itself (say a pytest banner the agent
    saw in its own run) is public to the judge, so it is not a secret.
    """
    found: list[str] = []
    labels = dataset_root / "labels.jsonl"
    if labels.is_file():
        found += [ln.strip() for ln in labels.read_text().splitlines() if ln.strip()]
    evidence_root = dataset_root / "evidence"
    if not evidence_root.is_dir():
        return found
    for case_evidence in sorted(p for p in evidence_root.iterdir() if p.is_dir()):
        public = _package_text(dataset_root / "cases" / case_evidence.name)
        for path in sorted(p for p in case_evidence.rglob("*") if p.is_file()):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [ln.strip() for ln in text.splitlines()
                      if len(ln.strip()) >= 16 and ln.strip() not in public]
    return found


def _package_text(case_dir: Path) -> str:
    if not case_dir.is_dir():
        return ""
    files = sorted(p for p in case_dir.rglob("*") if p.is_file())
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


def register_secrets(dataset_root: Path) -> None:
    SECRETS.extend(secrets_of(dataset_root))

SKILL_MD = "---\nname: summing\ndescription: adding numbers\n---\nUse python3 to add.\n"


def evidence_text(case_id: str) -> str:
    return f"VERIFIER-EVIDENCE {case_id}: expected total 42, got 41; test_total FAILED-XQ7\n"


def build_dataset(root: Path, totals: dict[str, int], filler_steps: int = 0) -> Dataset:
    """A dataset with one case per entry of `totals` (case id -> total written to out.json).

    A total of 42 is labelled pass, anything else fail. `filler_steps` adds long tool steps so
    the trajectory needs several read_file pages.
    """
    labels = []
    for case_id, total in sorted(totals.items()):
        _write_case(root, case_id, total, filler_steps)
        labels.append(LabelRecord(case_id=case_id, label=Label.PASS if total == 42 else Label.FAIL,
                                  reward=1.0 if total == 42 else 0.0))
        evidence = root / "evidence" / case_id
        evidence.mkdir(parents=True, exist_ok=True)
        (evidence / "test-stdout.txt").write_text(evidence_text(case_id))
    append_labels(root, labels)
    register_secrets(root)
    return Dataset(root)


def _write_case(root: Path, case_id: str, total: int, filler_steps: int) -> None:
    out = json.dumps({"total": total})
    steps = [
        Step(index=0, kind=StepKind.ASSISTANT_MESSAGE, text="I will read the input."),
        Step(index=1, kind=StepKind.TOOL_CALL, tool="Bash", tool_use_id="t1",
             arguments={"command": "cat /root/input.txt"}, output="20\n21\n1\n", exit_code=0),
        Step(index=2, kind=StepKind.SKILL_USE, tool="Skill", skill="summing",
             text="Use python3 to add."),
        Step(index=3, kind=StepKind.TOOL_CALL, tool="Write", tool_use_id="t2",
             arguments={"file_path": "/root/out.json", "content": out}, output="ok",
             files_touched=["/root/out.json"]),
    ]
    steps += [
        Step(index=4 + i, kind=StepKind.TOOL_CALL, tool="Bash", tool_use_id=f"f{i}",
             arguments={"command": f"echo filler {i}"}, output=f"filler line {i} " * 200,
             exit_code=0)
        for i in range(filler_steps)
    ]
    trajectory = Trajectory(
        case_id=case_id, source_format="test", steps=steps,
        final_message=f"Done: total is {total}.",
        termination=Termination(status=TerminationStatus.COMPLETED, num_turns=len(steps)),
    )
    write_case(root, task="sum-numbers", domain=Domain.MATHEMATICS, instruction=INSTRUCTION,
               trajectory=trajectory,
               source=Source(trial_path=f"trials/{case_id}", trial_name=case_id,
                             transcript_format="test"),
               skills={"summing": {"SKILL.md": SKILL_MD}}, artifacts={"/root/out.json": out})


def point_artifact_at(case_dir: Path, stored_as: str) -> None:
    """Rewrite the case's first artifact record to claim it is stored at `stored_as` (a crafted
    case.json reaching for files outside `artifacts/`)."""
    meta = CaseMeta.model_validate_json((case_dir / "case.json").read_text())
    record = meta.artifacts[0].model_copy(update={"stored_as": stored_as})
    meta = meta.model_copy(update={"artifacts": [record, *meta.artifacts[1:]]})
    (case_dir / "case.json").write_text(meta.model_dump_json(indent=1))
