"""The checklist analysis of a judged run: `analysis.json` and a self-contained HTML page.

The figures of `metrics.py` (AUC of raw and outcome-gated credit, perfect, coverage) plus what
only a closer look gives: matched skill pairs, the evidence perturbation, human agreement and the
per-task summaries.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import jinja2
from pydantic import BaseModel, ConfigDict

from judge_runner.checklist.analyze import (
    HumanAgreement,
    HumanPreference,
    PairAnalysis,
    PairRun,
    PerturbRates,
    human_agreement,
    pair_analysis,
    perturbation_rates,
)
from judge_runner.checklist.metrics import ChecklistMetrics, checklist_metrics
from judge_runner.checklist.outcome import CaseScore
from judge_runner.checklist.pipeline import PerturbRecord
from judge_runner.core import Label as Outcome
from judge_runner.jsonl import numbered_lines
from judge_runner.templates import environment

ANALYSIS_FILE = "analysis.json"
REPORT_FILE = "checklist_report.html"


class TaskSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    n: int
    mean_credit_pass: float | None
    mean_credit_fail: float | None
    mean_coverage: float
    stopped_at: dict[str, int]  # first failed item -> runs stopping there


class ChecklistAnalysis(ChecklistMetrics):
    """The run's checklist metrics and the analyses beside them."""

    n_errors: int
    errors: dict[str, str]  # case id -> reason (error verdicts: not scored)
    pairs: PairAnalysis
    perturbation: dict[str, PerturbRates]  # "all", "code", "model"
    human: HumanAgreement | None
    tasks: list[TaskSummary]


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def build_analysis(
    scores: list[CaseScore], errors: dict[str, str], perturb: list[PerturbRecord],
    preferences: list[HumanPreference] | None, unreadable: int = 0,
) -> ChecklistAnalysis:
    labelled = [s for s in scores if s.outcome is not None]
    runs = [PairRun(case_id=s.case_id, task=s.task, model=s.agent_model,
                    with_skills=bool(s.with_skills), outcome=s.outcome,
                    score=s.partial_credit)
            for s in labelled if s.outcome is not None and s.with_skills is not None]
    rates = {"all": perturbation_rates([r.after for r in perturb])}
    for source in ("code", "model"):
        rates[source] = perturbation_rates([r.after for r in perturb if r.source == source])
    human = None
    if preferences is not None:
        human = human_agreement(preferences, {s.case_id: s.partial_credit for s in scores})
    metrics = checklist_metrics(scores, unreadable)
    return ChecklistAnalysis(
        **metrics.model_dump(), n_errors=len(errors), errors=dict(sorted(errors.items())),
        pairs=pair_analysis(runs), perturbation=rates, human=human,
        tasks=_task_summaries(scores),
    )


def _task_summaries(scores: list[CaseScore]) -> list[TaskSummary]:
    by_task: dict[str, list[CaseScore]] = defaultdict(list)
    for s in scores:
        by_task[s.task].append(s)
    out = []
    for task in sorted(by_task):
        rows = by_task[task]

        def credit(outcome: Outcome, rows: list[CaseScore] = rows) -> float | None:
            return _mean([s.partial_credit for s in rows
                          if s.outcome is outcome and s.partial_credit is not None])

        stops = Counter(s.stopped_at for s in rows if s.stopped_at is not None)
        out.append(TaskSummary(task=task, n=len(rows), mean_credit_pass=credit(Outcome.PASS),
                               mean_credit_fail=credit(Outcome.FAIL),
                               mean_coverage=statistics.fmean(s.coverage for s in rows),
                               stopped_at=dict(sorted(stops.items()))))
    return out


def read_preferences(path: Path) -> list[HumanPreference]:
    """Human preference pairs, one JSON object per line. Raises ValueError naming the line."""
    prefs = []
    for n, line in numbered_lines(path):
        try:
            prefs.append(HumanPreference.model_validate_json(line))
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not a preference pair: {exc}") from exc
    return prefs


def write_analysis(out_dir: Path, analysis: ChecklistAnalysis, scores: list[CaseScore]) -> None:
    """Write analysis.json and the HTML page into `out_dir`."""
    (out_dir / ANALYSIS_FILE).write_text(analysis.model_dump_json(indent=2) + "\n",
                                         encoding="utf-8")
    (out_dir / REPORT_FILE).write_text(render_html(analysis, scores), encoding="utf-8")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


@cache
def _templates() -> jinja2.Environment:
    env = environment("judge_runner.checklist", html=True)
    env.filters["fmt"] = _fmt
    return env


def render_section(analysis: ChecklistAnalysis, scores: list[CaseScore]) -> str:
    """The checklist section alone (an HTML fragment), for embedding in a larger report."""
    return _templates().get_template("section.html.j2").render(a=analysis, scores=scores)


def render_html(analysis: ChecklistAnalysis, scores: list[CaseScore]) -> str:
    return _templates().get_template("page.html.j2").render(
        section=render_section(analysis, scores))
