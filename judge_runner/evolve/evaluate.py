"""Judging a skill on a set of dev or gate cases, paid once per (skill hash, case).

Each (skill hash, purpose) pair has its own run directory under `<evolve dir>/judgments/`, and the
run store there resumes: a case judged once is never judged (or paid) again, whether the same
skill is scored twice, the loop is resumed after a kill, or a candidate reappears.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.core import Label, Usage
from judge_runner.evolve.bundles import JudgedCase
from judge_runner.judges import Judge
from judge_runner.runs import CASES_OUT, STORE_FILE, RunStore, run_eval

JUDGMENTS_DIR = "judgments"

JudgeForSkill = Callable[[Path], Judge]


@dataclass(frozen=True)
class Evaluation:
    judged: list[JudgedCase]
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
        result = run_eval(
            self.make_judge(skill_dir),
            self.dataset,
            case_ids,
            run_dir,
            concurrency=self.concurrency,
            progress=self.progress,
            write_reports=False,
        )
        judged: list[JudgedCase] = []
        for record in result.records:
            judged.append(
                JudgedCase(
                    case_id=record.case_id,
                    verdict=record.verdict,
                    label=Label(labels[record.case_id].label),
                    products_dir=run_dir / CASES_OUT / record.case_id,
                )
            )
        return Evaluation(judged=judged, run_dir=run_dir)

    def stored_usage(self) -> Usage:
        """What judging has cost so far: the usage of every verdict in every judgment store
        (each (skill, case) pair is stored, and paid, once)."""
        total = Usage()
        for store_file in sorted((self.evolve_dir / JUDGMENTS_DIR).glob(f"*/*/{STORE_FILE}")):
            with RunStore(store_file) as store:
                for verdict in store.verdicts().values():
                    total = total + verdict.usage
        return total
