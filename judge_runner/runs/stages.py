"""Per-stage figures of a staged judge (the cascade): who decided what, how well, at what cost.

A verdict names the stage that decided it (or the last that ran) in ``details["stage"]`` and,
for each stage that ran on the case, what it said and spent in ``details["stages"]``. Per stage:
the cases it saw, the cases that ended there and their share of all cases, decided cases,
accuracy on the labelled decided ones, errors, abstentions, and the stage's usage over every
case it saw. The cost comparison estimates what the last stage would have cost on every case:
its mean cost per case it saw, times all cases (errors included, since they are paid for too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Decision, Usage

if TYPE_CHECKING:
    from judge_runner.runs.records import CaseRecord


class StageFigures(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int  # cases that ended at this stage
    share: float  # of all cases
    n_decided: int
    n_labeled_decided: int
    correct: int
    accuracy: float  # on labelled decided cases; 0.0 when there is none
    n_error: int
    n_abstain: int
    usage: Usage  # spent by this stage on every case it saw
    n_seen: int = 0  # cases this stage was asked about
    calibrated: bool = False


class StageSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    stages: dict[str, StageFigures] = Field(default_factory=dict)  # in stage order
    cost_usd: float  # what the run cost
    tokens: int  # prompt + output tokens of the run
    last_stage: str | None = None  # the stage the comparison runs on every case
    model_cost_all_usd: float | None  # estimated: the last stage on every case
    model_tokens_all: int | None  # estimated tokens of the last stage on every case
    saving: float | None  # 1 - cost / model_cost_all (tokens when no price is known)


def _ran(record: CaseRecord) -> list[dict[str, Any]]:
    entries = record.verdict.details.get("stages")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def stage_order(records: Sequence[CaseRecord]) -> list[str]:
    """Stage labels in the order stages ran (the longest path seen), then any other in order
    of first use."""
    order: list[str] = []
    for r in sorted(records, key=lambda r: -len(_ran(r))):
        for entry in _ran(r):
            if entry.get("stage") not in order:
                order.append(str(entry.get("stage")))
    for r in records:
        stage = r.verdict.details.get("stage")
        if isinstance(stage, str) and stage not in order:
            order.append(stage)
    return order


def stage_summary(records: Sequence[CaseRecord]) -> StageSummary | None:
    """None when no verdict names a stage."""
    order = stage_order(records)
    if not order:
        return None
    n = len(records)
    stages: dict[str, StageFigures] = {}
    for stage in order:
        group = [r for r in records if r.verdict.details.get("stage") == stage]
        seen = [(r, e) for r in records for e in _ran(r) if e.get("stage") == stage]
        decided = [r for r in group if r.decision.is_decided]
        labeled = [r for r in decided if r.label is not None]
        correct = sum(1 for r in labeled if r.correct)
        usage = (sum((Usage.model_validate(e["usage"]) for _, e in seen if "usage" in e),
                     Usage()) if seen else sum((r.verdict.usage for r in group), Usage()))
        stages[stage] = StageFigures(
            n=len(group), share=round(len(group) / n, 6), n_decided=len(decided),
            n_labeled_decided=len(labeled), correct=correct,
            accuracy=round(correct / len(labeled), 6) if labeled else 0.0,
            n_error=sum(1 for r in group if r.decision is Decision.ERROR),
            n_abstain=sum(1 for r in group if r.decision is Decision.ABSTAIN),
            usage=usage, n_seen=len(seen) or len(group),
            calibrated=any(bool(e.get("calibrated")) for _, e in seen))
    cost = sum(r.verdict.usage.cost_usd for r in records)
    tokens = sum(r.verdict.usage.total_tokens for r in records)
    last_name = order[-1]
    last = stages[last_name]
    all_model = (round(last.usage.cost_usd / last.n_seen * n, 6)
                 if last.n_seen and last.usage.cost_usd > 0 else None)
    all_tokens = (round(last.usage.total_tokens / last.n_seen * n)
                  if last.n_seen and last.usage.total_tokens > 0 else None)
    if all_model:
        saving: float | None = round(1 - cost / all_model, 6)
    elif all_tokens:
        saving = round(1 - tokens / all_tokens, 6)
    else:
        saving = None
    return StageSummary(stages=stages, cost_usd=round(cost, 6), tokens=tokens,
                        last_stage=last_name, model_cost_all_usd=all_model,
                        model_tokens_all=all_tokens, saving=saving)
