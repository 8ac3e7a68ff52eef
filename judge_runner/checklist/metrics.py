"""The outcome step and the partial-credit scores, as metrics of a judged run.

The checklist judge records its item judgments in ``details["checklist"]`` (`ChecklistDetails`)
without reading any label. Here, in the metrics stage and only for cases with a label, the
outcome step of `outcome.py` is applied and the per-case scores follow (partial, weighted and
gated credit, perfect, stopped_at). The run's figures are the AUC of each score against the label
(the raw credit uses the judgments alone; the others include the outcome step and so move toward
the label by construction), how often "perfect" agrees with the label, the mean coverage and
where the gated readings stopped.

A verdict without checklist details (an error, another judge) is left out; details that do not
parse as `ChecklistDetails` are counted in ``n_unreadable``, never scored.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.checklist.analyze import AucResult, auc
from judge_runner.checklist.outcome import CaseScore, ChecklistDetails, score_items
from judge_runner.core import Label as Outcome

DETAILS_KEY = "checklist"
SCORE_FIELDS = ("raw_credit", "partial_credit", "weighted_credit", "gated_credit")


class ChecklistMetrics(BaseModel):
    """The checklist figures of a run (``metrics.json`` → ``checklist``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_cases: int  # verdicts carrying checklist judgments
    n_labeled: int  # of those, with a label: the scores include the outcome step
    n_unreadable: int = 0  # checklist details that did not parse
    auc: dict[str, AucResult]  # SCORE_FIELDS -> AUC against the label
    perfect_agrees_with_outcome: dict[str, float | None]  # with / without endpoint
    mean_coverage: float | None
    stopped_at: dict[str, int]  # where gated readings stopped (item id or ENDPOINT) -> cases


def read_details(details: Mapping[str, Any]) -> ChecklistDetails | None:
    """The checklist details of a verdict; None when it has none. Raises ValueError when they
    are present but malformed."""
    raw = details.get(DETAILS_KEY)
    if raw is None:
        return None
    try:
        return ChecklistDetails.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(f"checklist details do not parse: {exc}") from exc


def case_score(case_id: str, details: ChecklistDetails, label: Outcome | None) -> CaseScore:
    """The scores of one case: its judged items, with the outcome step when `label` is known."""
    score = score_items(details.items, label, case_id=case_id, task=details.task)
    return score.model_copy(update={"with_skills": details.with_skills,
                                    "agent_model": details.agent_model})


def case_scores(
    rows: Iterable[tuple[str, Mapping[str, Any], Outcome | None]],
) -> tuple[list[CaseScore], int]:
    """Scores of the (case id, verdict details, label) rows that carry checklist details, and
    the number whose details are unreadable."""
    scores: list[CaseScore] = []
    unreadable = 0
    for case_id, details, label in rows:
        try:
            parsed = read_details(details)
        except ValueError:
            unreadable += 1
            continue
        if parsed is not None:
            scores.append(case_score(case_id, parsed, label))
    return scores, unreadable


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def checklist_metrics(scores: Sequence[CaseScore], unreadable: int = 0) -> ChecklistMetrics:
    labeled = [s for s in scores if s.outcome is not None]
    aucs = {f: auc([(getattr(s, f), s.outcome) for s in labeled if s.outcome])
            for f in SCORE_FIELDS}
    perfect = {
        "with_endpoint": _mean([float(s.perfect_with_endpoint == (s.outcome is Outcome.PASS))
                                for s in labeled]),
        "without_endpoint": _mean([float(s.perfect == (s.outcome is Outcome.PASS))
                                   for s in labeled]),
    }
    stops = Counter(s.stopped_at for s in scores if s.stopped_at is not None)
    return ChecklistMetrics(n_cases=len(scores), n_labeled=len(labeled), n_unreadable=unreadable,
                            auc=aucs, perfect_agrees_with_outcome=perfect,
                            mean_coverage=_mean([s.coverage for s in scores]),
                            stopped_at=dict(sorted(stops.items())))


def run_checklist_metrics(
    rows: Iterable[tuple[str, Mapping[str, Any], Outcome | None]],
) -> ChecklistMetrics | None:
    """The figures of a run's (case id, details, label) rows; None when no verdict carries
    checklist details (a run of another judge)."""
    scores, unreadable = case_scores(rows)
    if not scores and not unreadable:
        return None
    return checklist_metrics(scores, unreadable)
