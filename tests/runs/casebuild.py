"""Building small labeled datasets through `write_case` (no importer needed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases import (
    Domain,
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


@dataclass(frozen=True)
class Spec:
    case_id: str
    task: str
    domain: Domain | None
    label: Label | None
    answer: str  # what the scripted judge will read: pass | fail | abstain | raise
    report: str = "done"  # the agent's only message, also its final message


def write_dataset(root: Path, specs: list[Spec]) -> Path:
    """Write one case package per spec plus labels.jsonl; returns `root`."""
    for spec in specs:
        trajectory = Trajectory(
            case_id=spec.case_id,
            source_format="test",
            steps=[Step(index=0, kind=StepKind.ASSISTANT_MESSAGE, text=spec.report)],
            final_message=spec.report,
            termination=Termination(status=TerminationStatus.COMPLETED),
        )
        label = None if spec.label is None else LabelRecord(
            case_id=spec.case_id, label=spec.label,
            reward=1.0 if spec.label is Label.PASS else 0.0)
        write_case(root, task=spec.task, domain=spec.domain, instruction=f"Solve {spec.task}.\n",
                   trajectory=trajectory,
                   source=Source(trial_path=f"trials/{spec.case_id}", trial_name=spec.case_id,
                                 transcript_format="test"),
                   artifacts={"answer.txt": spec.answer + "\n"}, label=label)
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
