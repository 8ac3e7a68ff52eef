"""Running a plan: every row's cases on one shared pool, within the budget, each verdict
committed to its row's run store as it arrives.

Scheduling, on the calling thread (the single writer of every store):

- a case starts only while fewer than `concurrency` cases are in flight in the plan, fewer than
  the row's own `concurrency`, and fewer than each of its providers' `limits`;
- with a budget, a case starts only when what the plan has spent (every verdict stored for its
  rows, earlier runs included) plus the estimate of every case in flight plus its own
  estimate (the high end, see `estimate`) stays within the budget. A case that does not fit
  waits; when nothing is in flight and nothing fits, the run ends and the cases left are
  reported as not judged (no verdict is stored for them, so they are never errors and the
  same command with a larger budget judges them);
- Ctrl-C / SIGTERM: nothing more starts, the cases in flight are cancelled at their next safe
  point, and what finished is stored (as `run_eval` does); kill -9 loses only the cases in
  flight, each stored verdict having been committed on its own.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from judge_runner import cancel
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.experiments.estimate import PlanEstimate
from judge_runner.experiments.rows import providers_of
from judge_runner.experiments.study import PreparedRow, Study
from judge_runner.judges import Judge
from judge_runner.runs import (
    CASES_OUT,
    RunInfo,
    RunResult,
    RunStore,
    build_records,
    judge_in_scope,
    summarize,
    write_outputs,
)

RUN_FILE = "run.json"


class RowOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")

    row: str
    run_dir: str
    config_hash: str
    cases: int
    judged_now: int
    resumed: int  # verdicts the store already held
    not_judged: list[str] = Field(default_factory=list)  # left by the budget
    usage: Usage = Field(default_factory=Usage)


class PlanSpending(BaseModel):
    """What a plan judged and spent: the fields `run.json` and `report.json` both open with."""

    model_config = ConfigDict(extra="forbid")

    plan: str
    dataset: str
    split: str
    budget_usd: float | None
    spent_usd: float


class PlanRun(PlanSpending):
    """run.json: what the last `experiment run` did, row by row."""

    stopped_by_budget: bool
    rows: list[RowOutcome]

    @property
    def not_judged(self) -> int:
        return sum(len(r.not_judged) for r in self.rows)


@dataclass
class _Open:
    prepared: PreparedRow
    judge: Judge
    store: RunStore
    info: RunInfo
    providers: list[str]
    per_case_usd: dict[str, float]
    judged_now: int = 0
    resumed: int = 0


@dataclass(frozen=True)
class _Task:
    row: _Open
    case_id: str
    estimate_usd: float


def run_plan(study: Study, estimate: PlanEstimate, *, progress: bool = True,
             stream: IO[str] | None = None) -> PlanRun:
    """Judge what the plan's rows still lack; see the module docstring. Raises
    ConfigMismatchError (before judging) when a row's directory holds another configuration."""
    plan = study.plan
    by_row = {e.row: e for e in estimate.rows}
    opened: list[_Open] = []
    try:
        for prepared in study.rows:
            assert prepared.judge is not None and prepared.run_dir is not None
            store = RunStore.open(prepared.run_dir)
            opened.append(_Open(prepared, prepared.judge, store,
                                store.bind(prepared.judge.name, prepared.judge.config()),
                                providers_of(prepared.row), by_row[prepared.row.name].per_case_usd))
        started = time.monotonic()
        pending: list[_Task] = []
        spent = 0.0
        for row in opened:
            stored = row.store.verdicts()
            done = {c for c in row.prepared.case_ids if c in stored}
            row.resumed = len(done)
            spent += sum(stored[c].usage.cost_usd for c in done)
            pending += [_Task(row, c, row.per_case_usd.get(c, 0.0))
                        for c in row.prepared.case_ids if c not in done]
        display = _Display(opened, plan.budget_usd, spent, enabled=progress, stream=stream)
        with display:
            spent = _schedule(study, pending, spent, display)
        outcomes = [_finish(study, row, time.monotonic() - started, pending) for row in opened]
    finally:
        for row in opened:
            row.store.close()
    result = PlanRun(plan=plan.name, dataset=str(study.cases.dataset.root),
                     split=study.cases.split, budget_usd=plan.budget_usd,
                     spent_usd=round(spent, 6), stopped_by_budget=bool(pending), rows=outcomes)
    return result


def _schedule(study: Study, pending: list[_Task], spent: float, display: _Display) -> float:
    """Run `pending` (judged tasks are removed from it); returns the plan's spending."""
    plan = study.plan
    budget = plan.budget_usd
    cancelled = threading.Event()
    in_flight: dict[Future[Verdict], _Task] = {}
    per_row: Counter[str] = Counter()
    per_provider: Counter[str] = Counter()

    def fits(task: _Task, reserved: float) -> bool:
        row = task.row.prepared.row
        if row.concurrency is not None and per_row[row.name] >= row.concurrency:
            return False
        for provider in task.row.providers:
            limit = plan.limits.get(provider)
            if limit is not None and per_provider[provider] >= limit.concurrency:
                return False
        return budget is None or spent + reserved + task.estimate_usd <= budget + 1e-12

    def keep(task: _Task, verdict: Verdict) -> None:
        nonlocal spent
        task.row.store.put(verdict)
        task.row.judged_now += 1
        spent += verdict.usage.cost_usd
        display.advance(task.row, verdict, spent)

    pool = ThreadPoolExecutor(max_workers=plan.concurrency, thread_name_prefix="judge")
    with cancel.active(cancelled):
        try:
            while True:
                reserved = sum(t.estimate_usd for t in in_flight.values())
                for task in list(pending):
                    if len(in_flight) >= plan.concurrency:
                        break
                    if not fits(task, reserved):
                        continue
                    pending.remove(task)
                    reserved += task.estimate_usd
                    per_row[task.row.prepared.row.name] += 1
                    per_provider.update(task.row.providers)
                    case = study.cases.dataset.case(task.case_id)
                    out = task.row.store.path.parent / CASES_OUT / task.case_id
                    in_flight[pool.submit(judge_in_scope, cancelled, task.row.judge, case,
                                          out)] = task
                if not in_flight:
                    return spent
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: in_flight[f].case_id):
                    task = in_flight.pop(future)
                    per_row[task.row.prepared.row.name] -= 1
                    per_provider.subtract(task.row.providers)
                    keep(task, future.result())
        except BaseException:
            cancelled.set()
            pool.shutdown(wait=True, cancel_futures=True)
            for future, task in sorted(in_flight.items(), key=lambda kv: kv[1].case_id):
                if future.done() and not future.cancelled() and future.exception() is None:
                    verdict = future.result()
                    if verdict.error != cancel.CANCELLED:
                        keep(task, verdict)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _finish(study: Study, row: _Open, seconds: float, pending: list[_Task]) -> RowOutcome:
    """Write the row's verdicts.jsonl, metrics.json and reports over its judged cases."""
    verdicts = row.store.verdicts()
    judged = [c for c in row.prepared.case_ids if c in verdicts]
    records = build_records(study.cases.dataset, judged, verdicts)
    summary = summarize(row.info, str(study.cases.dataset.root), records,
                        n_judged_now=row.judged_now, wall_seconds=seconds)
    run_dir = row.store.path.parent
    write_outputs(RunResult(run_dir=run_dir, info=row.info, records=records, summary=summary))
    return RowOutcome(
        row=row.prepared.row.name, run_dir=str(run_dir), config_hash=row.info.config_hash,
        cases=len(row.prepared.case_ids), judged_now=row.judged_now, resumed=row.resumed,
        not_judged=sorted(t.case_id for t in pending if t.row is row), usage=summary.usage)


class _Display:
    """One progress display for the whole plan: a bar per row, and the plan's tokens, dollars
    and budget on the first line."""

    def __init__(self, rows: list[_Open], budget: float | None, spent: float, enabled: bool,
                 stream: IO[str] | None) -> None:
        self.budget = budget
        self.spent = spent
        self.usage = Usage()
        self.counts: Counter[Decision] = Counter()
        self._progress = Progress(
            TextColumn("{task.description:<24}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            console=Console(stderr=True, file=stream), disable=not enabled, transient=False)
        self._plan = self._progress.add_task("plan", total=sum(len(r.prepared.case_ids)
                                                                for r in rows), stats="")
        self._rows: dict[int, TaskID] = {}
        for row in rows:
            self._rows[id(row)] = self._progress.add_task(
                row.prepared.row.name[:24], total=len(row.prepared.case_ids),
                completed=row.resumed, stats="")
        self._progress.update(self._plan, completed=sum(r.resumed for r in rows),
                              stats=self._stats())

    def _stats(self) -> str:
        c = self.counts
        cap = f" of ${self.budget:.2f}" if self.budget is not None else ""
        return (f"[green]pass {c[Decision.PASS]}[/] [red]fail {c[Decision.FAIL]}[/] "
                f"[yellow]error {c[Decision.ERROR]}[/] tokens {self.usage.total_tokens:,} "
                f"spent ${self.spent:.4f}{cap}")

    def advance(self, row: _Open, verdict: Verdict, spent: float) -> None:
        self.counts[verdict.decision] += 1
        self.usage = self.usage + verdict.usage
        self.spent = spent
        self._progress.update(self._rows[id(row)], advance=1)
        self._progress.update(self._plan, advance=1, stats=self._stats())

    def __enter__(self) -> _Display:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()


def write_run(folder: Path, result: PlanRun) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RUN_FILE
    path.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path
