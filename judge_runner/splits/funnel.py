"""The construction funnel of a benchmark: how many trials entered and where each one left.

Stages, in order, each counted once per trial: *entered* (every trial the import found),
*refused* by the import (failed or skipped, by reason), *dropped* by `bench build` as
*overlong* (over the step, token or field limits), *invalid* (any other validation problem) or
*unlabeled*, in a *single-outcome* task (only pass or only fail cases left), and *remained*.
entered = refused + overlong + invalid + unlabeled + single_outcome + remained, overall, per
harness and per agent model (from each trial's case, or its import report entry when refused).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.cases import Dataset
from judge_runner.ingest import ImportReport, TrialStatus

UNKNOWN = "(unknown)"
_LIMIT = re.compile(r"over the limit|exceeds \d+ characters")
_SPACES = re.compile(r"\s+")


class FunnelRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    group: str
    entered: int = 0
    refused: int = 0
    overlong: int = 0
    invalid: int = 0
    unlabeled: int = 0
    single_outcome: int = 0
    remained: int = 0


class Funnel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    total: FunnelRow
    refused_by_reason: dict[str, int] = Field(default_factory=dict)
    by_harness: list[FunnelRow] = Field(default_factory=list)
    by_model: list[FunnelRow] = Field(default_factory=list)
    tasks_entered: int = 0
    tasks_remained: int = 0


STAGES = ("entered", "refused", "overlong", "invalid", "unlabeled", "single_outcome", "remained")


def funnel(dataset: Dataset, report: ImportReport | None, drops: dict[str, str],
           single_outcome: Iterable[str], remained: Iterable[str]) -> Funnel:
    """`drops`: case id -> why `bench build` dropped it (validation reasons or "no label")."""
    stage_of: dict[str, str] = {}
    for case_id, reason in drops.items():
        stage_of[case_id] = "unlabeled" if reason == "no label" else \
            "overlong" if _LIMIT.search(reason) else "invalid"
    stage_of.update(dict.fromkeys(single_outcome, "single_outcome"))
    stage_of.update(dict.fromkeys(remained, "remained"))
    rows: list[tuple[str, str, str, str | None]] = []  # stage, harness, model, task
    reasons: Counter[str] = Counter()
    for entry in report.trials if report is not None else []:
        if entry.status is TrialStatus.IMPORTED:
            continue  # counted from its case below
        reasons[_reason(entry.reason)] += 1
        rows.append(("refused", _harness(entry.agent), entry.model or UNKNOWN, entry.task))
    for case_id, stage in sorted(stage_of.items()):
        meta = dataset.case(case_id).meta
        rows.append((stage, _harness(meta.source.agent), meta.source.model or UNKNOWN, meta.task))
    return Funnel(total=_row("all", rows), refused_by_reason=dict(sorted(reasons.items())),
                  by_harness=_rows(rows, 1), by_model=_rows(rows, 2),
                  tasks_entered=len({r[3] for r in rows if r[3]}),
                  tasks_remained=len({r[3] for r in rows if r[3] and r[0] == "remained"}))


def table(f: Funnel) -> str:
    """The funnel as a plain-text table: one line per group, then the refusal reasons."""
    groups = [("", [f.total]), ("harness: ", f.by_harness), ("model: ", f.by_model)]
    width = max(len(title + r.group) for title, rows in groups for r in rows)
    lines = [f"{'trials':<{width}}" + "".join(f"  {s:>{len(s)}}" for s in STAGES)]
    for title, rows in groups:
        lines += [f"{title + r.group:<{width}}" +
                  "".join(f"  {getattr(r, s):>{len(s)}}" for s in STAGES) for r in rows]
    lines.append(f"tasks: {f.tasks_entered} entered, {f.tasks_remained} remained")
    lines += [f"refused ({n}): {reason}" for reason, n in f.refused_by_reason.items()]
    return "\n".join(lines)


def _row(group: str, rows: list[tuple[str, str, str, str | None]]) -> FunnelRow:
    stages = Counter(r[0] for r in rows)
    return FunnelRow(group=group, entered=len(rows), **{s: stages[s] for s in STAGES[1:]})


def _rows(rows: list[tuple[str, str, str, str | None]], key: int) -> list[FunnelRow]:
    grouped: dict[str, list[tuple[str, str, str, str | None]]] = defaultdict(list)
    for r in rows:
        grouped[str(r[key])].append(r)
    return [_row(g, grouped[g]) for g in sorted(grouped)]


def _harness(agent: str | None) -> str:
    return agent.split()[0] if agent and agent.split() else UNKNOWN


def _reason(reason: str | None) -> str:
    """A refusal reason without the details that differ trial by trial (paths, offsets)."""
    text = _SPACES.sub(" ", reason or "no reason given")
    head = re.split(r"[;(]", text, maxsplit=1)[0].strip()
    return re.sub(r"\d+", "N", head)[:100]
