"""Risk–coverage: accuracy on the cases a judge is surest of, as it decides more of them.

A judge that reports, per verdict, a `confidence` in [0, 1] and the `forced` decision it would
give without abstaining (the rules judge does, in `Verdict.details`) can be read at every
coverage: sort the labelled cases by confidence (ties by case id, so the curve is
deterministic), decide the top k with their forced decisions, and report the accuracy on those k
against coverage k/n. The run's own operating point is the coverage and accuracy it actually
had (abstentions undecided). Cases without a confidence, errors and unlabelled cases are left
out and counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.judges.base import Decision
from judge_runner.runs.records import CaseRecord


class CurvePoint(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    coverage: float
    accuracy: float
    confidence: float  # the lowest confidence decided at this point


class RiskCoverage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int  # labelled cases on the curve
    n_left_out: int  # errors, unlabelled cases and verdicts without a confidence
    points: list[CurvePoint] = Field(default_factory=list)
    operating_coverage: float
    operating_accuracy: float

    def accuracy_at(self, coverage: float) -> float | None:
        """Accuracy of the first point at or above `coverage` (None if none)."""
        return next((p.accuracy for p in self.points if p.coverage >= coverage - 1e-12), None)


def _scored(record: CaseRecord) -> tuple[float, Decision] | None:
    details = record.verdict.details
    confidence, forced = details.get("confidence"), details.get("forced")
    if not isinstance(confidence, int | float) or forced not in ("pass", "fail"):
        return None
    return float(confidence), Decision(forced)


def risk_coverage(records: Sequence[CaseRecord]) -> RiskCoverage | None:
    """The curve over labelled records with a confidence; None when there is none."""
    rows: list[tuple[float, str, bool, Decision]] = []
    left_out = 0
    for r in records:
        scored = _scored(r)
        if r.label is None or r.decision is Decision.ERROR or scored is None:
            left_out += 1
            continue
        confidence, forced = scored
        rows.append((confidence, r.case_id, forced.value == r.label.value, r.decision))
    if not rows:
        return None
    rows.sort(key=lambda row: (-row[0], row[1]))
    n = len(rows)
    points: list[CurvePoint] = []
    correct = 0
    for k, (confidence, _, right, _) in enumerate(rows, start=1):
        correct += right
        points.append(CurvePoint(coverage=round(k / n, 6), accuracy=round(correct / k, 6),
                                 confidence=round(confidence, 6)))
    decided = [row for row in rows if row[3].is_decided]
    operating_accuracy = (sum(1 for row in decided if row[2]) / len(decided)) if decided else 0.0
    return RiskCoverage(n=n, n_left_out=left_out, points=points,
                        operating_coverage=round(len(decided) / n, 6),
                        operating_accuracy=round(operating_accuracy, 6))
