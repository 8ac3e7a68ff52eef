"""Judging a skill on a set of dev or gate cases, paid once per (skill hash, case).

Each (skill hash, purpose) pair has its own run directory under `<evolve dir>/judgments/`, and the
run store there resumes: a case judged once is never judged (or paid) again, whether the same
skill is scored twice, the loop is resumed after a kill, or a candidate reappears.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases import Dataset, Label
from judge_runner.evolve.bundles import JudgedCase
from judge_runner.judges import Judge
from judge_runner.models import Usage
from judge_runner.runs.records import CASES_OUT
from judge_runner.runs.runner import run_eval
from judge_runner.runs.store import RunStore

JUDGMENTS_DIR = "judgments"

JudgeForSkill = Callable[[Path], Judge]


@dataclass(frozen=True)
class Evaluation:
    judged: list[JudgedCase]
    new_usage: Usage  # what this call paid (cases judged now, not those from the store)
    run_dir: Path


@dataclass(frozen=True)
class SkillEvaluator:
    dataset: Dataset
    make_judge: JudgeForSkill
    evolve_dir: Path
    concurrency: int = 4
    progress: bool = False

    def evaluate(
        self, skill_dir: Path, skill_hash: str, purpose: str, case_ids: list[str]
    ) -> Evaluation:
        """Judge `case_ids` with the skill in `skill_dir`; labels are required for every case."""
        labels = self.dataset.labels()
        unlabeled = [c for c in case_ids if c not in labels]
        if unlabeled:
            raise ValueError(f"evolution needs labeled cases; unlabeled: {unlabeled[:5]}")
        run_dir = self.evolve_dir / JUDGMENTS_DIR / skill_hash[:16] / purpose
        with RunStore.open(run_dir) as store:
            already = set(store.verdicts())
        result = run_eval(
            self.make_judge(skill_dir),
            self.dataset,
            case_ids,
            run_dir,
            concurrency=self.concurrency,
            progress=self.progress,
            write_reports=False,
        )
        new_usage = Usage()
        judged: list[JudgedCase] = []
        for record in result.records:
            if record.case_id not in already:
                new_usage = new_usage + record.verdict.usage
            judged.append(
                JudgedCase(
                    case_id=record.case_id,
                    verdict=record.verdict,
                    label=Label(labels[record.case_id].label),
                    products_dir=run_dir / CASES_OUT / record.case_id,
                )
            )
        return Evaluation(judged=judged, new_usage=new_usage, run_dir=run_dir)
