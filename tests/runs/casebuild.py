"""Building small labeled datasets through the case-package models (no importer needed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases.models import (
    CaseMeta,
    CaseStats,
    Domain,
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
)
from judge_runner.jsonl import write_models


@dataclass(frozen=True)
class Spec:
    case_id: str
    task: str
    domain: Domain | None
    label: Label | None
    answer: str  # what the scripted judge will read: pass | fail | abstain | raise


def write_dataset(root: Path, specs: list[Spec]) -> Path:
    """Write one case package per spec plus labels.jsonl; returns `root`."""
    labels = []
    for spec in specs:
        case_dir = root / "cases" / spec.case_id
        (case_dir / "artifacts").mkdir(parents=True)
        (case_dir / "skills").mkdir()
        (case_dir / "artifacts" / "answer.txt").write_text(spec.answer + "\n", encoding="utf-8")
        (case_dir / "instruction.md").write_text(f"Solve {spec.task}.\n", encoding="utf-8")
        trajectory = Trajectory(
            case_id=spec.case_id,
            source_format="test",
            steps=[Step(index=0, kind=StepKind.ASSISTANT_MESSAGE, text="done")],
            final_message="done",
            termination=Termination(status=TerminationStatus.COMPLETED),
        )
        (case_dir / "trajectory.json").write_text(trajectory.model_dump_json(), encoding="utf-8")
        meta = CaseMeta(
            id=spec.case_id,
            task=spec.task,
            domain=spec.domain,
            source=Source(trial_path=f"trials/{spec.case_id}", trial_name=spec.case_id,
                          transcript_format="test"),
            with_skills=False,
            skills=[],
            artifacts=[],
            stats=CaseStats(n_steps=1, n_tool_calls=0, n_error_steps=0, n_skill_uses=0,
                            raw_chars=4, normalized_chars=4, raw_tokens_est=1,
                            normalized_tokens_est=1),
        )
        (case_dir / "case.json").write_text(meta.model_dump_json(), encoding="utf-8")
        if spec.label is not None:
            labels.append(LabelRecord(case_id=spec.case_id, label=spec.label,
                                      reward=1.0 if spec.label is Label.PASS else 0.0))
    if labels:
        write_models(root / "labels.jsonl", labels)
    return root


def mixed_specs(n: int) -> list[Spec]:
    """n cases over a few tasks/domains; the scripted answer is right on two of every three."""
    domains = [Domain.FINANCE, Domain.ENERGY, Domain.ROBOTICS]
    specs = []
    for i in range(n):
        label = Label.PASS if i % 3 == 0 else Label.FAIL
        wrong = i % 3 == 2
        answer = (Label.FAIL if label is Label.PASS else Label.PASS).value if wrong else label.value
        specs.append(Spec(case_id=f"case-{i:03d}", task=f"task-{i % 4}",
                          domain=domains[i % len(domains)], label=label, answer=answer))
    return specs
