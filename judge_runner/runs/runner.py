"""Running a judge over many cases: bounded concurrency, resume from the run store, outputs.

`run_eval` is the Python entry point (the CLI and the evolution loop both call it). Per run dir::

    run.sqlite        the store; each verdict committed as soon as it is produced
    run.log.jsonl     structlog JSON events of this run
    cases/<id>/       the judge's per-case products (plan.md, inspection_log.jsonl, verdict.json)
    verdicts.jsonl    one CaseRecord per requested case, sorted by case id
    metrics.json      RunSummary (metrics over labeled cases, usage, counts)
    report.html, report.md

Re-running with the same judge configuration judges only the cases without a verdict (and, with
`retry_errors`, the error ones). A judge that raises is turned into an ERROR verdict for that case;
the run continues. Ctrl-C or SIGTERM stops the run once the cases in flight reach a safe point;
their cancelled verdicts are not stored, so the next run judges them (see `_judge_all`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import structlog
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judge_runner import cancel
from judge_runner.cases import CasePackage, Dataset, case_id_problem, package_problems
from judge_runner.checklist import run_checklist_metrics
from judge_runner.core import (
    CASE_FILE,
    Decision,
    Metrics,
    Usage,
    Verdict,
    compute_metrics,
    is_correct,
)
from judge_runner.files import write_whole
from judge_runner.jsonl import write_models
from judge_runner.judges import Judge, skill_dir_of, write_cancelled, write_products
from judge_runner.runs.guarantee import guarantee_of
from judge_runner.runs.records import (
    CASES_OUT,
    LOG_FILE,
    METRICS_FILE,
    VERDICTS_FILE,
    CaseRecord,
    RunSummary,
)
from judge_runner.runs.report import write_reports
from judge_runner.runs.riskcov import risk_coverage, stage_curves
from judge_runner.runs.stages import stage_summary
from judge_runner.runs.store import RunInfo, RunStore
from judge_runner.skills import SkillRef, skill_ref


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    info: RunInfo
    records: list[CaseRecord]
    summary: RunSummary

    @property
    def metrics(self) -> Metrics | None:
        return self.summary.metrics


class MissingCasesError(ValueError):
    """Requested case ids that the dataset does not contain, or that are not case ids at all."""


def run_eval(
    judge: Judge,
    dataset: Dataset,
    case_ids: list[str],
    run_dir: Path,
    concurrency: int = 4,
    progress: bool = True,
    retry_errors: bool = False,
    write_reports: bool = True,
) -> RunResult:
    """Judge `case_ids` of `dataset` into `run_dir`, resuming from its store.

    Raises MissingCasesError before judging anything when an id is not a case id (a path such
    as ``../cases/<id>``, see `judge_runner.cases.ids`) or not in the dataset, and
    ConfigMismatchError when `run_dir` belongs to another judge configuration. Case-level
    failures never raise: they become ERROR verdicts.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    case_ids = sorted(dict.fromkeys(case_ids))
    invalid = [f"{c!r} ({problem})" for c in case_ids if (problem := case_id_problem(c))]
    if invalid:
        raise MissingCasesError(f"{len(invalid)} requested id(s) are not case ids: "
                                + ", ".join(invalid[:10]) + (" ..." if len(invalid) > 10 else ""))
    missing = [c for c in case_ids if not (dataset.cases_dir / c / CASE_FILE).is_file()]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise MissingCasesError(
            f"{len(missing)} case(s) not found in {dataset.cases_dir}: {shown}")
    run_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with RunStore.open(run_dir) as store, _run_log(run_dir) as log:
        info = store.bind(judge.name, judge.config())
        done = store.finished(retry_errors=retry_errors)
        todo = [c for c in case_ids if c not in done]
        log.info("run_start", judge=judge.name, config_hash=info.config_hash,
                 cases=len(case_ids), todo=len(todo), concurrency=concurrency)
        prior = store.verdicts()
        with _Progress(len(case_ids), enabled=progress) as bar:
            for case_id in case_ids:
                if case_id in done:
                    bar.advance(prior[case_id])
            _judge_all(judge, dataset, todo, run_dir, concurrency, store, bar, log)
        verdicts = store.verdicts()
        log.info("run_end", judged=len(todo), seconds=round(time.monotonic() - started, 3))
    records = build_records(dataset, case_ids, verdicts)
    folder = skill_dir_of(judge)
    summary = summarize(info, str(dataset.root), records, n_judged_now=len(todo),
                        skill=skill_ref(folder) if folder is not None else None,
                        wall_seconds=time.monotonic() - started)
    result = RunResult(run_dir=run_dir, info=info, records=records, summary=summary)
    write_outputs(result, reports=write_reports)
    return result


def _judge_all(
    judge: Judge,
    dataset: Dataset,
    todo: list[str],
    run_dir: Path,
    concurrency: int,
    store: RunStore,
    bar: _Progress,
    log: Any,
) -> None:
    """Judge `todo` on a thread pool, storing each verdict as it arrives.

    On an interrupt (KeyboardInterrupt, or the `cancel.Terminated` of a SIGTERM/SIGHUP handler)
    nothing queued starts, the cases in flight are cancelled at their next safe point (see
    `cancel`), verdicts that finished meanwhile are stored, and the interrupt propagates.
    Cancelled cases are not stored, so the next run judges them again.
    """
    # Workers only judge; the calling thread is the single writer of the store.
    cancelled = threading.Event()
    stored: set[str] = set()

    def keep(verdict: Verdict) -> None:
        store.put(verdict)
        stored.add(verdict.case_id)
        bar.advance(verdict)
        log.info("verdict", case_id=verdict.case_id, decision=verdict.decision.value,
                 seconds=round(verdict.duration_s, 3), cost_usd=verdict.usage.cost_usd,
                 error=verdict.error)

    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge")
    futures: list[Future[Verdict]] = []
    # Registered as active, a SIGTERM/SIGHUP handler cancels this run before anything else.
    with cancel.active(cancelled):
        try:
            for case_id in todo:
                futures.append(pool.submit(judge_in_scope, cancelled, judge, dataset.case(case_id),
                                           run_dir / CASES_OUT / case_id))
            for future in as_completed(futures):
                keep(future.result())
        except BaseException:
            cancelled.set()
            pool.shutdown(wait=True, cancel_futures=True)
            finished = [f.result() for f in futures
                        if f.done() and not f.cancelled() and f.exception() is None]
            late = [v for v in finished if v.case_id not in stored and v.error != cancel.CANCELLED]
            for verdict in sorted(late, key=lambda v: v.case_id):
                keep(verdict)
            for verdict in sorted(finished, key=lambda v: v.case_id):
                if verdict.error == cancel.CANCELLED:
                    log.info("cancelled", case_id=verdict.case_id)
            log.info("run_interrupted", stored_now=len(stored),
                     cancelled=sum(1 for v in finished if v.error == cancel.CANCELLED),
                     not_started=sum(1 for f in futures if f.cancelled()))
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def judge_in_scope(event: threading.Event, judge: Judge, case: CasePackage,
                    out_dir: Path) -> Verdict:
    """`judge_one` with `event` as this worker's cancellation signal. A case picked up after
    cancellation is not judged at all (its earlier products stay as they were)."""
    if event.is_set():
        return Verdict(case_id=case.root.name, judge=judge.name, decision=Decision.ERROR,
                       error=cancel.CANCELLED)
    with cancel.scope(event):
        return judge_one(judge, case, out_dir)


def judge_one(judge: Judge, case: CasePackage, out_dir: Path) -> Verdict:
    """Run the judge on one case; an exception or a wrong case id becomes an ERROR verdict.

    A cancelled run (see `cancel`) ends the case as an ERROR with reason `cancel.CANCELLED`,
    and so does any other error the case ends with once the run is cancelled.
    A package that is unsafe to judge (a label or evidence file inside it, an artifact stored
    outside `artifacts/`, see `package_problems`) is never shown to the judge: it is an ERROR
    verdict naming the problems. Every ERROR made here also rewrites the case's products, so no
    plan.md or verdict.json of an earlier attempt (or of the wrong case) stays behind.
    """
    case_id = case.root.name
    started = time.monotonic()

    def error(reason: str) -> Verdict:
        verdict = Verdict(case_id=case_id, judge=judge.name, decision=Decision.ERROR,
                          error=reason, duration_s=time.monotonic() - started)
        if reason == cancel.CANCELLED:  # recorded as cancelled, never as an error of the case
            write_cancelled(out_dir)
        else:
            write_products(out_dir, None, [], verdict)
        return verdict

    problems = package_problems(case, case.root.parent.parent)
    if problems:
        return error("invalid case package, not judged: " + "; ".join(map(str, problems)))
    try:
        verdict = judge.judge(case, out_dir)
    except cancel.Cancelled:  # a judge that lets the cancellation through
        return error(cancel.CANCELLED)
    except Exception as exc:  # a judge must not raise; if it does, the case is an error
        if cancel.requested():  # e.g. its sandbox was removed by the SIGTERM handler
            return error(cancel.CANCELLED)
        return error(f"judge raised {type(exc).__name__}: {exc}")
    if verdict.decision is Decision.ERROR and cancel.requested():
        # An error once the run is cancelled is the cancellation's doing, not the case's:
        # stored, it would make the next run skip a case that was never judged.
        return error(cancel.CANCELLED)
    if verdict.case_id != case_id:
        return error(f"judge returned a verdict for {verdict.case_id!r}")
    if verdict.duration_s == 0.0:
        verdict = verdict.model_copy(update={"duration_s": time.monotonic() - started})
    return verdict


def build_records(
    dataset: Dataset, case_ids: list[str], verdicts: dict[str, Verdict]
) -> list[CaseRecord]:
    labels = dataset.labels()
    records = []
    for case_id in case_ids:
        verdict = verdicts[case_id]
        task, domain = _task_and_domain(dataset.case(case_id))
        label = labels[case_id].label if case_id in labels else None
        records.append(CaseRecord(case_id=case_id, task=task, domain=domain, label=label,
                                  decision=verdict.decision,
                                  correct=is_correct(verdict.decision, label), verdict=verdict))
    return records


def _task_and_domain(case: CasePackage) -> tuple[str | None, str | None]:
    try:
        meta = case.meta
    except (OSError, ValueError):  # unreadable case.json: the judge reported it as an error
        return None, None
    return meta.task, meta.domain.value if meta.domain is not None else None


def summarize(
    info: RunInfo,
    dataset: str | Dataset,
    records: list[CaseRecord],
    n_judged_now: int,
    wall_seconds: float,
    skill: SkillRef | None = None,
) -> RunSummary:
    """The run summary of `records`. `dataset` names the judged data (a path, or several joined);
    only its name is kept. A Dataset is still accepted for callers written before it was a str.
    """
    source = str(dataset.root) if isinstance(dataset, Dataset) else dataset
    labeled = [r for r in records if r.label is not None]
    metrics = (compute_metrics((r.decision, r.label, r.domain) for r in labeled if r.label)
               if labeled else None)
    usage = sum((r.verdict.usage for r in records), Usage())
    decisions = {d.value: sum(1 for r in records if r.decision is d) for d in Decision}
    return RunSummary(
        judge=info.judge, config_hash=info.config_hash, config=info.config,
        dataset=source, n_cases=len(records), n_labeled=len(labeled),
        n_judged_now=n_judged_now, n_resumed=len(records) - n_judged_now, usage=usage,
        wall_seconds=round(wall_seconds, 3), metrics=metrics, decisions=decisions,
        n_unsupported=sum(1 for r in records if r.verdict.unsupported),
        n_unverified_quotes=sum(unverified_quotes(r.verdict) for r in records),
        risk_coverage=risk_coverage(records), stages=stage_summary(records), skill=skill,
        checklist=run_checklist_metrics((r.case_id, r.verdict.details, r.label)
                                        for r in records),
        stage_curves=stage_curves(records), guarantee=guarantee_of(info.config, records),
    )


def unverified_quotes(verdict: Verdict) -> int:
    """Quotes the judge cited that were not found in the output they name, as the judge counted
    them in `details["evidence"]` ({"quotes": n, "verified": k}); 0 when it reports none."""
    evidence = verdict.details.get("evidence")
    if not isinstance(evidence, dict):
        return 0
    quotes, verified = evidence.get("quotes"), evidence.get("verified")
    if not isinstance(quotes, int) or not isinstance(verified, int):
        return 0
    return max(0, quotes - verified)


def write_outputs(result: RunResult, reports: bool = True) -> None:
    """Write verdicts.jsonl, metrics.json and (unless disabled) the HTML and Markdown reports."""
    run_dir = result.run_dir
    write_models(run_dir / VERDICTS_FILE, result.records)
    write_whole(run_dir / METRICS_FILE, result.summary.model_dump_json(indent=2) + "\n")
    if reports:
        write_reports(run_dir, result.summary, result.records)


@contextmanager
def _run_log(run_dir: Path) -> Iterator[Any]:
    """A JSON-lines structlog logger writing to this run's log, apart from global logging."""
    with (run_dir / LOG_FILE).open("a", encoding="utf-8") as stream:
        yield structlog.wrap_logger(
            structlog.PrintLogger(file=stream),
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.JSONRenderer(sort_keys=True),
            ],
        )


class _Progress:
    """Rich progress bar on stderr: done / pass / fail / error, tokens and dollars."""

    def __init__(self, total: int, enabled: bool, stream: IO[str] | None = None) -> None:
        self.counts = {d: 0 for d in Decision}
        self.usage = Usage()
        self._progress = Progress(
            TextColumn("[bold]judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True, file=stream),
            disable=not enabled,
            transient=False,
        )
        self._task = self._progress.add_task("judging", total=total, stats=self._stats())

    def _stats(self) -> str:
        c = self.counts
        tokens = self.usage.total_tokens
        return (f"[green]pass {c[Decision.PASS]}[/] [red]fail {c[Decision.FAIL]}[/] "
                f"[yellow]error {c[Decision.ERROR]}[/] abstain {c[Decision.ABSTAIN]} "
                f"tokens {tokens:,} ${self.usage.cost_usd:.4f}")

    def advance(self, verdict: Verdict) -> None:
        self.counts[verdict.decision] += 1
        self.usage = self.usage + verdict.usage
        self._progress.update(self._task, advance=1, stats=self._stats())

    def __enter__(self) -> _Progress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

