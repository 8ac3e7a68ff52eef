"""The checklist section of a case page (checklist judge runs): the items in checklist order,
each with its judgment and citation links (the same resolved targets as the inspection log),
and, when the case has a label, the outcome step and where the gated reading stopped.

Verdicts without checklist details get no section; details that do not parse give a problem
line instead of a section.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_runner.checklist import (
    ENDPOINT_ID,
    CaseScore,
    ChecklistDetails,
    case_score,
    read_details,
)
from judge_runner.runs import CaseRecord
from judge_runner.view.case import InspectionView


@dataclass(frozen=True)
class ChecklistItemView:
    id: str
    order: int
    requirement: str
    route: str
    weight: float
    judged: str  # yes / no / abstain, as judged from the log
    source: str  # code / model / skipped
    inspection: InspectionView | None  # the judgment with its resolved citations
    final: str | None  # after the outcome step; None without a label
    credited: bool  # earns credit in the gated reading
    stopped_here: bool  # the gated reading stopped at this item


@dataclass(frozen=True)
class ChecklistView:
    details: ChecklistDetails
    score: CaseScore  # with the outcome step when the case has a label
    items: list[ChecklistItemView]
    endpoint_no: bool  # the label is fail: the virtual endpoint item is No

    @property
    def stopped_at(self) -> str | None:
        return self.score.stopped_at

    @property
    def labeled(self) -> bool:
        return self.score.outcome is not None


def checklist_view(record: CaseRecord, inspections: list[InspectionView],
                   problems: list[str]) -> ChecklistView | None:
    """The section of `record`; None for a verdict without checklist details."""
    try:
        details = read_details(record.verdict.details)
    except ValueError as exc:
        problems.append(str(exc))
        return None
    if details is None:
        return None
    score = case_score(record.case_id, details, record.label)
    scored = {s.item_id: s for s in score.items}
    by_item = {i.inspection.plan_item: i for i in inspections}
    labeled = record.label is not None
    items = [ChecklistItemView(
        id=item.id, order=item.order, requirement=item.requirement, route=item.route.value,
        weight=item.weight, judged=item.label.value, source=item.source.value,
        inspection=by_item.get(item.id),
        final=scored[item.id].final.value if labeled else None,
        credited=scored[item.id].credited, stopped_here=score.stopped_at == item.id)
        for item in details.items]
    return ChecklistView(details=details, score=score, items=items,
                         endpoint_no=ENDPOINT_ID in scored)
