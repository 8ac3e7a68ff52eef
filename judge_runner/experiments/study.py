"""A plan made ready: its cases, and per row the options, the judge, the run directory and
what that directory already holds. `estimate` needs no judge (a row whose judge cannot be built
here, e.g. for want of an API key, is still estimated); `run` builds every judge first, so a
configuration problem ends the command before any case is judged."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases import CasePackage
from judge_runner.core import Verdict
from judge_runner.experiments.estimate import PlanEstimate, RowEstimate, estimate_row, total
from judge_runner.experiments.plan import Plan, PlanError, Row
from judge_runner.experiments.rows import (
    PlanCases,
    build_row,
    check_row,
    plan_cases,
    row_options,
    row_run_dir,
)
from judge_runner.judges import Judge, JudgeOptions
from judge_runner.runs import STORE_FILE, RunStore, config_hash


@dataclass
class PreparedRow:
    row: Row
    options: JudgeOptions
    judge: Judge | None  # None when it could not be built (estimate only)
    run_dir: Path | None
    case_ids: list[str]
    prior: dict[str, Verdict]  # verdicts its run directory already holds for these cases
    note: str | None = None  # why there is no judge or run directory


@dataclass
class Study:
    plan: Plan
    cases: PlanCases
    rows: list[PreparedRow]

    def row(self, name: str) -> PreparedRow:
        return next(r for r in self.rows if r.row.name == name)


def prepare(plan: Plan, *, build: bool) -> Study:
    """Check every row, then build its judge (`build`: a failure is a PlanError; otherwise a
    failure is noted and the row is estimated without its run directory)."""
    for row in plan.rows:
        check_row(plan, row)
    cases = plan_cases(plan, import_trials=build)
    rows = []
    for row in plan.rows:
        options = row_options(plan, row)
        judge: Judge | None = None
        note = None
        try:
            judge = build_row(plan, row)
        except PlanError as exc:
            if build:
                raise
            note = str(exc).removeprefix(f"{plan.source}: ")
        run_dir = row_run_dir(plan, judge, cases.split) if judge is not None else None
        ids = cases.of(row)
        prior = stored_verdicts(run_dir, judge) if run_dir is not None and judge else {}
        rows.append(PreparedRow(row, options, judge, run_dir, ids,
                                {c: v for c, v in prior.items() if c in set(ids)}, note))
    return Study(plan, cases, rows)


def stored_verdicts(run_dir: Path, judge: Judge) -> dict[str, Verdict]:
    """The verdicts of `run_dir` when it belongs to this judge's configuration, else none (a
    run directory of another configuration is reported by `run`, not read here)."""
    if not (run_dir / STORE_FILE).is_file():
        return {}
    with RunStore.open(run_dir) as store:
        info = store.info()
        if info is None or info.config_hash != config_hash(judge.name, judge.config()):
            return {}
        return store.verdicts()


def estimate(study: Study) -> PlanEstimate:
    """The plan's estimate; no model is called."""
    from judge_runner.models import price_table

    prices = price_table()
    packages: dict[str, CasePackage] = {}
    rows: list[RowEstimate] = []
    for prepared in study.rows:
        for case_id in prepared.case_ids:
            if case_id not in packages:
                packages[case_id] = study.cases.dataset.case(case_id)
        cases: dict[str, object] = {c: packages[c] for c in prepared.case_ids}
        row = estimate_row(study.plan, prepared.row, prepared.options, cases, prepared.prior,
                           prepared.run_dir, prices)
        rows.append(row.model_copy(update={"note": prepared.note}))
    return total(study.plan, rows)
