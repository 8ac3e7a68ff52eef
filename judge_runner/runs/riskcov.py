"""Risk–coverage: accuracy on the cases a judge is surest of, as it decides more of them.

A judge that reports, per verdict, a confidence in [0, 1] (`Verdict.confidence`, or
`details["confidence"]` of older runs) and the decision it stands for (its decision, or the
`forced` one it would give without abstaining) can be read at every
coverage: sort the labelled cases by confidence (ties by case id, so the curve is
deterministic), decide the top k with their forced decisions, and report the accuracy on those k
against coverage k/n. The run's own operating point is the coverage and accuracy it actually
had (abstentions undecided). Errors and unlabelled cases are left out and counted.
`stage_curves` draws one curve per stage of a cascade, over the cases each stage saw, from what
the stage said (`details["stages"]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Decision

if TYPE_CHECKING:
    from judge_runner.runs.records import CaseRecord


class CurvePoint(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    coverage: float
    accuracy: float
    confidence: float  # the lowest confidence decided at this point


class RiskCoverage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int  # labelled cases on the curve
    n_left_out: int  # errors and unlabelled cases
    points: list[CurvePoint] = Field(default_factory=list)
    operating_coverage: float
    operating_accuracy: float

    def accuracy_at(self, coverage: float) -> float | None:
        """Accuracy of the first point at or above `coverage` (None if none)."""
        return next((p.accuracy for p in self.points if p.coverage >= coverage - 1e-12), None)


def _scored(said: dict[str, Any], confidence: Any) -> tuple[float, Decision] | None:
    decision = said.get("decision")
    forced = decision if decision in ("pass", "fail") else said.get("forced")
    if not isinstance(confidence, int | float) or forced not in ("pass", "fail"):
        return None
    return float(confidence), Decision(forced)


def _of_record(record: CaseRecord) -> tuple[float, Decision] | None:
    v = record.verdict
    confidence = v.confidence if v.confidence is not None else v.details.get("confidence")
    return _scored({"decision": v.decision.value, "forced": v.details.get("forced")}, confidence)


type Row = tuple[float, str, bool, Decision]


def risk_coverage(records: Sequence[CaseRecord]) -> RiskCoverage | None:
    """The curve over labelled records; None unless every labelled, non-error record carries a
    confidence (a judge that scores only some of its cases has no curve)."""
    rows: list[Row] = []
    left_out = 0
    for r in records:
        if r.label is None or r.decision is Decision.ERROR:
            left_out += 1
            continue
        scored = _of_record(r)
        if scored is None:
            return None
        confidence, forced = scored
        rows.append((confidence, r.case_id, forced.value == r.label.value, r.decision))
    return _curve(rows, left_out)


def stage_curves(records: Sequence[CaseRecord]) -> dict[str, RiskCoverage]:
    """One curve per cascade stage, over the labelled cases it saw and gave a confidence for
    (the others are counted as left out); stages in the order first seen."""
    rows: dict[str, list[Row]] = {}
    left_out: dict[str, int] = {}
    for r in records:
        entries = r.verdict.details.get("stages")
        for said in entries if isinstance(entries, list) else []:
            if not isinstance(said, dict):
                continue
            stage = str(said.get("stage"))
            rows.setdefault(stage, [])
            scored = _scored(said, said.get("confidence"))
            if r.label is None or scored is None:
                left_out[stage] = left_out.get(stage, 0) + 1
                continue
            confidence, forced = scored
            rows[stage].append((confidence, r.case_id, forced.value == r.label.value,
                                Decision(str(said.get("decision")))))
    curves = {stage: _curve(kept, left_out.get(stage, 0)) for stage, kept in rows.items()}
    return {stage: curve for stage, curve in curves.items() if curve is not None}


def _curve(rows: list[Row], left_out: int) -> RiskCoverage | None:
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


def risk_coverage_svg(curve: RiskCoverage, width: int = 560, height: int = 320,
                      plot_id: str = "risk-coverage-plot") -> str:
    """The curve (accuracy on decided cases against coverage, both 0..1) with the run's operating
    point marked; a complete, self-contained `<svg>` element."""
    left, right, top, bottom = 50, 20, 16, 44
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(x: float) -> str:
        return f"{left + plot_w * x:.1f}"

    def py(y: float) -> str:
        return f"{top + plot_h * (1 - y):.1f}"

    font = 'font-family="system-ui, sans-serif" font-size="12"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" id="{plot_id}" '
             f'role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'{font}><title>Risk–coverage: accuracy on decided cases against coverage</title>']
    for k in range(6):
        v = k / 5
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{py(v)}" y2="{py(v)}" '
                     'stroke="#d0d7de"/>')
        parts.append(f'<text x="{left - 6}" y="{float(py(v)) + 4:.1f}" text-anchor="end">'
                     f"{v:.1f}</text>")
        parts.append(f'<text x="{px(v)}" y="{top + plot_h + 16}" text-anchor="middle">'
                     f"{v:.1f}</text>")
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
                 "coverage (share of cases decided, surest first)</text>")
    parts.append(f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">accuracy on decided</text>')
    line = " ".join(f"{px(p.coverage)},{py(p.accuracy)}" for p in curve.points)
    parts.append(f'<polyline class="curve" fill="none" stroke="#1f6feb" stroke-width="2" '
                 f'points="{line}"/>')
    for p in curve.points:
        parts.append(f'<circle cx="{px(p.coverage)}" cy="{py(p.accuracy)}" r="2.5" '
                     f'fill="#1f6feb"><title>coverage {p.coverage:.2f}: accuracy '
                     f"{p.accuracy:.3f} (confidence ≥ {p.confidence:.2f})</title></circle>")
    ox, oy = px(curve.operating_coverage), py(curve.operating_accuracy)
    parts.append(f'<circle class="operating-point" cx="{ox}" cy="{oy}" r="6" fill="none" '
                 f'stroke="#d1242f" stroke-width="2.5"><title>operating point: coverage '
                 f"{curve.operating_coverage:.2f}, accuracy {curve.operating_accuracy:.3f}"
                 "</title></circle>")
    parts.append(f'<text x="{float(ox) + 9:.1f}" y="{float(oy) + 16:.1f}" fill="#d1242f">'
                 f"operating point ({curve.operating_coverage:.2f}, "
                 f"{curve.operating_accuracy:.2f})</text>")
    parts.append("</svg>")
    return "".join(parts)
