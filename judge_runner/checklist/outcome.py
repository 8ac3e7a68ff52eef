"""The scripted outcome step and the per-case checklist scores.

The checklist judge labels items from the execution log without knowing the official outcome
(`judge.py`). Only afterwards, in the metrics stage of a run (`metrics.py`) and only here, the
outcome is applied by fixed rules:

- PASS: every assertion-route item becomes Yes (the verifier asserted it and passed).
- FAIL: item labels stay as judged, and a virtual endpoint item labelled No is appended last.
- no label (an unlabeled pool): nothing changes; the scores are the raw judgments.

Scores, with Yes/No/Abstain counted over the items after this step:

- ``partial_credit`` = Yes / (Yes + No); abstains are left out. None when nothing was decided.
- ``weighted_credit``: the same with item weights (the endpoint weighs 1).
- ``coverage`` = (Yes + No) / items over the checklist items as judged from the log, before the
  outcome step and without the endpoint: the share of requirements the evidence decided.
- ``perfect``: no No among the checklist items after the step; ``perfect_with_endpoint``: also
  none from the endpoint (so an official FAIL is never perfect).
- ordered gating: items are read in checklist order; a Yes earns credit only while no earlier
  item was No. ``gated_credit`` = credited Yes / (Yes + No). ``stopped_at`` is the first No item
  (the endpoint's id when only the endpoint failed). Abstains neither earn credit nor stop the
  reading, unless ``abstain_blocks`` is set: missing evidence is not evidence of failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from judge_runner.checklist.models import (
    Checklist,
    ChecklistItem,
    ItemJudgment,
    ItemKind,
    JudgmentSource,
    Label,
    Route,
)
from judge_runner.core import Label as Outcome

ENDPOINT_ID = "ENDPOINT"


class ScoredItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    order: int
    weight: float
    judged: Label  # as the judge (or code) labelled it
    final: Label  # after the outcome step
    overridden: bool = False  # final differs from judged because of the outcome step
    credited: bool = False  # earns credit under ordered gating


class CaseScore(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    task: str
    outcome: Outcome | None
    items: list[ScoredItem]  # checklist order, endpoint last when present
    yes: int
    no: int
    abstain: int
    partial_credit: float | None
    weighted_credit: float | None
    raw_credit: float | None  # Yes / (Yes + No) of the judgments alone, before the outcome step
    coverage: float
    perfect: bool
    perfect_with_endpoint: bool
    gated_credit: float | None
    stopped_at: str | None
    # about the run, for matched-pair analyses; filled from case.json by the pipeline
    with_skills: bool | None = None
    agent_model: str | None = None


class OutcomeError(ValueError):
    """Judgments do not match the checklist they claim to score."""


class JudgedItem(BaseModel):
    """One checklist item as judged from the log: what the outcome step and the scores need."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    order: int
    route: Route
    weight: float
    kind: ItemKind
    requirement: str
    label: Label
    source: JudgmentSource

    @classmethod
    def of(cls, item: ChecklistItem, judgment: ItemJudgment) -> JudgedItem:
        return cls(id=item.id, order=item.order, route=item.route, weight=item.weight,
                   kind=item.kind, requirement=item.requirement, label=judgment.label,
                   source=judgment.source)


class ChecklistDetails(BaseModel):
    """``details["checklist"]`` of a checklist verdict: the items in checklist order as judged,
    before any outcome step, and what the decision was made with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    checklist_hash: str
    model: str
    threshold: float
    min_coverage: float
    items: list[JudgedItem]
    with_skills: bool | None = None  # about the run, for the matched-pair analysis
    agent_model: str | None = None

    def _count(self, label: Label) -> int:
        return sum(1 for i in self.items if i.label is label)

    @property
    def yes(self) -> int:
        return self._count(Label.YES)

    @property
    def no(self) -> int:
        return self._count(Label.NO)

    @property
    def abstain(self) -> int:
        return self._count(Label.ABSTAIN)

    @property
    def raw_credit(self) -> float | None:
        return raw_credit(self.items)

    @property
    def coverage(self) -> float:
        return (self.yes + self.no) / len(self.items) if self.items else 0.0


def raw_credit(items: Sequence[JudgedItem]) -> float | None:
    """Yes / (Yes + No) of the judgments alone; None when nothing was decided."""
    return _ratio([i.label for i in items])


def apply_outcome(
    checklist: Checklist,
    judgments: Sequence[ItemJudgment],
    outcome: Outcome | None,
    *,
    case_id: str,
    abstain_blocks: bool = False,
) -> CaseScore:
    """Score one case. Raises OutcomeError when an item is judged twice, not at all, or an
    unknown item is judged: such judgments belong to another checklist version."""
    by_id = _index(checklist, judgments, case_id)
    items = [JudgedItem.of(item, by_id[item.id]) for item in checklist.ordered()]
    return score_items(items, outcome, case_id=case_id, task=checklist.task,
                       abstain_blocks=abstain_blocks)


def score_items(
    judged: Sequence[JudgedItem],
    outcome: Outcome | None,
    *,
    case_id: str,
    task: str,
    abstain_blocks: bool = False,
) -> CaseScore:
    """The outcome step and the scores of one case from its items in checklist order."""
    items: list[ScoredItem] = []
    for item in judged:
        final = Label.YES if outcome is Outcome.PASS and item.route is Route.ASSERTION \
            else item.label
        items.append(ScoredItem(item_id=item.id, order=item.order, weight=item.weight,
                                judged=item.label, final=final,
                                overridden=final is not item.label))
    raw = _ratio([i.judged for i in items])
    decided_raw = sum(1 for i in items if i.judged is not Label.ABSTAIN)
    coverage = decided_raw / len(items) if items else 0.0
    perfect = all(i.final is not Label.NO for i in items)
    if outcome is Outcome.FAIL:
        items.append(ScoredItem(item_id=ENDPOINT_ID, order=len(items) + 1, weight=1.0,
                                judged=Label.NO, final=Label.NO))
    items, stopped_at = _gate(items, abstain_blocks)
    finals = [i.final for i in items]
    yes = finals.count(Label.YES)
    no = finals.count(Label.NO)
    credited = sum(1 for i in items if i.credited)
    return CaseScore(
        case_id=case_id, task=task, outcome=outcome, items=items, yes=yes, no=no,
        abstain=finals.count(Label.ABSTAIN),
        partial_credit=_ratio(finals),
        weighted_credit=_weighted(items),
        raw_credit=raw,
        coverage=coverage,
        perfect=perfect,
        perfect_with_endpoint=perfect and outcome is not Outcome.FAIL,
        gated_credit=credited / (yes + no) if yes + no else None,
        stopped_at=stopped_at,
    )


def _index(
    checklist: Checklist, judgments: Sequence[ItemJudgment], case_id: str
) -> Mapping[str, ItemJudgment]:
    by_id: dict[str, ItemJudgment] = {}
    for j in judgments:
        if j.item_id in by_id:
            raise OutcomeError(f"case {case_id}: item {j.item_id} judged twice")
        by_id[j.item_id] = j
    expected = {i.id for i in checklist.items}
    unknown = sorted(set(by_id) - expected)
    missing = sorted(expected - set(by_id))
    if unknown or missing:
        raise OutcomeError(
            f"case {case_id}: judgments do not match checklist {checklist.task} "
            f"({checklist.content_hash[:12]}): unknown {unknown}, missing {missing}"
        )
    return by_id


def _gate(items: list[ScoredItem], abstain_blocks: bool) -> tuple[list[ScoredItem], str | None]:
    stopped_at: str | None = None
    gated: list[ScoredItem] = []
    for item in items:
        blocks = item.final is Label.NO or (abstain_blocks and item.final is Label.ABSTAIN)
        if stopped_at is None and blocks:
            stopped_at = item.item_id
        credited = stopped_at is None and item.final is Label.YES
        gated.append(item.model_copy(update={"credited": credited}))
    return gated, stopped_at


def _ratio(labels: Sequence[Label]) -> float | None:
    yes = labels.count(Label.YES)
    no = labels.count(Label.NO)
    return yes / (yes + no) if yes + no else None


def _weighted(items: Sequence[ScoredItem]) -> float | None:
    yes = sum(i.weight for i in items if i.final is Label.YES)
    decided = sum(i.weight for i in items if i.final is not Label.ABSTAIN)
    return yes / decided if decided else None


def skipped_judgments(checklist: Checklist, reason: str) -> list[ItemJudgment]:
    """Abstain on every item, e.g. for a case whose checklist could not be scored offline."""
    return [ItemJudgment(item_id=i.id, label=Label.ABSTAIN, source=JudgmentSource.SKIPPED,
                         reason=reason) for i in checklist.ordered()]
