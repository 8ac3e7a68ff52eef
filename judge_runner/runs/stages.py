"""Per-stage figures of a staged judge (the cascade): who decided what, how well, at what cost.

A verdict names its stage in ``details["stage"]``. Per stage: cases, share of all cases,
decided cases, accuracy on the labelled decided ones, errors, and the stage's usage. The cost
comparison estimates what the model judge would have cost on every case: its mean cost per case
it saw, times all cases (errors included, since they are paid for too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Decision, Usage

if TYPE_CHECKING:
    from judge_runner.runs.records import CaseRecord

MODEL_STAGE = "model"


class StageFigures(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    share: float  # of all cases
    n_decided: int
    n_labeled_decided: int
    correct: int
    accuracy: float  # on labelled decided cases; 0.0 when there is none
    n_error: int
    n_abstain: int
    usage: Usage


class StageSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    stages: dict[str, StageFigures] = Field(default_factory=dict)  # in order of first use
    cost_usd: float  # what the run cost
    tokens: int  # prompt + output tokens of the run
    model_cost_all_usd: float | None  # estimated: the model stage on every case
    model_tokens_all: int | None  # estimated tokens of the model stage on every case
    saving: float | None  # 1 - cost / model_cost_all (tokens when no price is known)


def stage_summary(records: Sequence[CaseRecord]) -> StageSummary | None:
    """None when no verdict names a stage."""
    groups: dict[str, list[CaseRecord]] = {}
    for r in records:
        stage = r.verdict.details.get("stage")
        if isinstance(stage, str):
            groups.setdefault(stage, []).append(r)
    if not groups:
        return None
    n = len(records)
    stages: dict[str, StageFigures] = {}
    for stage, group in groups.items():
        decided = [r for r in group if r.decision.is_decided]
        labeled = [r for r in decided if r.label is not None]
        correct = sum(1 for r in labeled if r.correct)
        stages[stage] = StageFigures(
            n=len(group), share=round(len(group) / n, 6), n_decided=len(decided),
            n_labeled_decided=len(labeled), correct=correct,
            accuracy=round(correct / len(labeled), 6) if labeled else 0.0,
            n_error=sum(1 for r in group if r.decision is Decision.ERROR),
            n_abstain=sum(1 for r in group if r.decision is Decision.ABSTAIN),
            usage=sum((r.verdict.usage for r in group), Usage()))
    cost = sum(r.verdict.usage.cost_usd for r in records)
    tokens = sum(r.verdict.usage.total_tokens for r in records)
    model = stages.get(MODEL_STAGE)
    all_model = (round(model.usage.cost_usd / model.n * n, 6)
                 if model is not None and model.usage.cost_usd > 0 else None)
    all_tokens = (round(model.usage.total_tokens / model.n * n)
                  if model is not None and model.usage.total_tokens > 0 else None)
    if all_model:
        saving: float | None = round(1 - cost / all_model, 6)
    elif all_tokens:
        saving = round(1 - tokens / all_tokens, 6)
    else:
        saving = None
    return StageSummary(stages=stages, cost_usd=round(cost, 6), tokens=tokens,
                        model_cost_all_usd=all_model, model_tokens_all=all_tokens, saving=saving)
