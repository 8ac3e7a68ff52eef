"""What a run leaves on disk besides the store: verdicts.jsonl lines and metrics.json."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.checklist import ChecklistMetrics
from judge_runner.core import Decision, Label, Metrics, Usage, Verdict
from judge_runner.jsonl import read_models
from judge_runner.runs.guarantee import Guarantee
from judge_runner.runs.riskcov import RiskCoverage
from judge_runner.runs.stages import StageSummary
from judge_runner.skills import SkillRef

CASES_OUT = "cases"
VERDICTS_FILE = "verdicts.jsonl"
METRICS_FILE = "metrics.json"
LOG_FILE = "run.log.jsonl"


class CaseRecord(BaseModel):
    """One line of verdicts.jsonl: the verdict with what is known about the case."""

    model_config = ConfigDict(extra="forbid")

    case_id: str
    task: str | None
    domain: str | None
    label: Label | None  # None for unlabeled pools
    decision: Decision
    correct: bool | None  # is_correct(decision, label)
    verdict: Verdict


class RunSummary(BaseModel):
    """metrics.json: the metrics plus the accounting of the run that produced them."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    config_hash: str
    config: dict[str, Any]
    dataset: str
    n_cases: int
    n_labeled: int
    n_judged_now: int  # judged in this invocation (the rest came from the store)
    n_resumed: int
    usage: Usage
    wall_seconds: float
    metrics: Metrics | None  # None when no requested case carries a label
    decisions: dict[str, int] = Field(default_factory=dict)
    n_unsupported: int = 0  # verdicts whose citations did not resolve (decided all the same)
    n_unverified_quotes: int = 0  # evidence quotes not found in the output they cite
    risk_coverage: RiskCoverage | None = None  # judges that report a confidence per verdict
    stages: StageSummary | None = None  # staged judges (cascade): per-stage figures
    checklist: ChecklistMetrics | None = None  # checklist judge: partial-credit figures
    skill: SkillRef | None = None  # the JudgeSkill the judge followed, if it follows one
    stage_curves: dict[str, RiskCoverage] = Field(default_factory=dict)  # cascade, per stage
    guarantee: Guarantee | None = None  # calibrated judges: what is promised, how it did


def load_records(run_dir: Path) -> list[CaseRecord]:
    """Read verdicts.jsonl of a finished run; raises FileNotFoundError naming the file."""
    path = run_dir / VERDICTS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {run_dir} a finished run directory?")
    return read_models(path, CaseRecord)


def load_summary(run_dir: Path) -> RunSummary:
    path = run_dir / METRICS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {run_dir} a finished run directory?")
    return RunSummary.model_validate_json(path.read_text(encoding="utf-8"))
