"""The plan's report: the paper's tables from the rows' run directories.

- Table 2: per row P, R, F1, Acc, BalAcc (with their 95 % intervals where the metrics carry
  one: Wilson for proportions, bootstrap for balanced accuracy), coverage, errors, tokens, cost,
  and the cases the budget left unjudged;
- Table 3: accuracy per domain per row;
- Table 4: the version rows (rows with `version`), in plan order, with the gate score G;
- Table 5: Success@n of best-of-n selection for the rows taking part, with oracle and random;
- McNemar (exact and mid-p) for each comparison the plan names.

Written as report.json (the source of every other form), report.md, report.html (linking to each
row's own report page), one CSV per table and report.tex (booktabs tables).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field

from judge_runner.experiments.plan import Plan
from judge_runner.experiments.run import PlanRun, PlanSpending
from judge_runner.runs import CaseRecord, compare_records, load_records, load_summary, select
from judge_runner.templates import environment

REPORT_JSON, REPORT_MD, REPORT_HTML, REPORT_TEX = ("report.json", "report.md", "report.html",
                                                   "report.tex")
# (column, Metrics field) of Table 2's quality figures, in the paper's order
QUALITY = (("P", "precision"), ("R", "recall"), ("F1", "f1"), ("Acc", "accuracy"),
           ("BalAcc", "balanced_accuracy"))


class Figure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: float
    low: float | None = None
    high: float | None = None


class MainRow(BaseModel):
    """One line of Table 2."""

    model_config = ConfigDict(extra="forbid")

    row: str
    title: str
    judge: str
    model: str
    run_dir: str
    cases: int
    judged: int
    not_judged: int
    figures: dict[str, Figure]  # keyed by QUALITY's columns
    coverage: float
    errors: int
    abstentions: int
    tokens: int
    cost_usd: float


class VersionRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    row: str
    n: int
    balanced_accuracy: float
    recall_fail: float
    precision_pass: float
    gate_score: Figure


class PairTest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    n_paired: int
    accuracy_a: float
    accuracy_b: float
    a_right_b_wrong: int
    a_wrong_b_right: int
    p_exact: float
    p_mid: float


class SuccessRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    selector: str
    success: list[float]  # Success@n, n = 1..n_max (sampled)
    expected: list[float]


class ExperimentReport(PlanSpending):
    main: list[MainRow]
    domains: list[str]
    per_domain: dict[str, dict[str, float | None]]  # row -> domain -> accuracy
    versions: list[VersionRow]
    selection_note: str | None = None
    selection_n_max: int = 0
    selection: list[SuccessRow] = Field(default_factory=list)
    pairs: list[PairTest]


def build_report(plan: Plan, run: PlanRun) -> ExperimentReport:
    """The report of the rows `run` names (their run directories as they are now)."""
    outcomes = {o.row: o for o in run.rows}
    records: dict[str, list[CaseRecord]] = {}
    main: list[MainRow] = []
    per_domain: dict[str, dict[str, float | None]] = {}
    versions: list[VersionRow] = []
    for row in plan.rows:
        outcome = outcomes.get(row.name)
        if outcome is None:
            continue
        run_dir = Path(outcome.run_dir)
        records[row.name] = load_records(run_dir)
        summary = load_summary(run_dir)
        m = summary.metrics
        figures = {}
        for column, field in QUALITY:
            interval = m.ci.get(field) if m else None
            figures[column] = Figure(value=getattr(m, field) if m else 0.0,
                                     low=interval.low if interval else None,
                                     high=interval.high if interval else None)
        main.append(MainRow(
            row=row.name, title=row.label, judge=row.judge,
            model=", ".join(m_ for m_ in [row.model or "", *row.models] if m_) or "-",
            run_dir=str(run_dir), cases=outcome.cases, judged=summary.n_cases,
            not_judged=len(outcome.not_judged), figures=figures,
            coverage=m.coverage if m else 0.0, errors=summary.decisions.get("error", 0),
            abstentions=summary.decisions.get("abstain", 0),
            tokens=summary.usage.total_tokens, cost_usd=round(summary.usage.cost_usd, 6)))
        per_domain[row.name] = {d: v.accuracy if v.n_decided else None
                                for d, v in (m.per_domain.items() if m else [])}
        if row.version is not None and m is not None:
            g = m.ci.get("gate_score")
            versions.append(VersionRow(
                version=row.version, row=row.name, n=m.n,
                balanced_accuracy=m.balanced_accuracy, recall_fail=m.recall_fail,
                precision_pass=m.precision_pass,
                gate_score=Figure(value=m.gate_score, low=g.low if g else None,
                                  high=g.high if g else None)))
    domains = sorted({d for by in per_domain.values() for d in by})
    report = ExperimentReport(
        plan=plan.name, dataset=run.dataset, split=run.split, budget_usd=run.budget_usd,
        spent_usd=run.spent_usd, main=main, domains=domains,
        per_domain={r: {d: by.get(d) for d in domains} for r, by in per_domain.items()},
        versions=versions, pairs=[_pair(c.a, c.b, records) for c in plan.comparisons
                                  if c.a in records and c.b in records])
    _add_selection(plan, records, report)
    return report


def _pair(a: str, b: str, records: dict[str, list[CaseRecord]]) -> PairTest:
    c = compare_records(records[a], records[b], a, b)
    return PairTest(a=a, b=b, n_paired=c.n_paired, accuracy_a=c.accuracy_a,
                    accuracy_b=c.accuracy_b, a_right_b_wrong=c.test.b, a_wrong_b_right=c.test.c,
                    p_exact=c.test.p_exact, p_mid=c.test.p_mid)


def _add_selection(plan: Plan, records: dict[str, list[CaseRecord]],
                   report: ExperimentReport) -> None:
    if plan.selection is None:
        return
    taking_part = {r.name: records[r.name] for r in plan.rows if r.select and r.name in records}
    if not taking_part:
        report.selection_note = "no row takes part in the selection study"
        return
    try:
        result = select(taking_part, n_max=plan.selection.n_max,
                        repeats=plan.selection.repeats, seed=plan.selection.seed)
    except ValueError as exc:
        report.selection_note = f"selection study not made: {exc}"
        return
    report.selection_n_max = result.n_max
    report.selection_note = (f"{result.tasks} tasks, {result.trajectories} trajectories, "
                             f"{result.repeats} paired repeats, seed {result.seed}")
    report.selection = [SuccessRow(selector=c.selector, success=c.sampled, expected=c.expected)
                        for c in result.curves]


# --- the tables as rows of cells: one source for Markdown, CSV, LaTeX and HTML ----------------

def _fig(f: Figure) -> str:
    return f"{f.value:.3f}"


def _ci(f: Figure) -> str:
    return f"[{f.low:.3f}, {f.high:.3f}]" if f.low is not None and f.high is not None else ""


def _opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def tables(report: ExperimentReport) -> dict[str, tuple[list[str], list[list[str]]]]:
    """Every table as (header, rows of cells): table2 .. table5 and mcnemar."""
    out: dict[str, tuple[list[str], list[list[str]]]] = {}
    head = ["judge", "model", "n"]
    for column, _ in QUALITY:
        head += [column, f"{column} 95% CI"]
    head += ["coverage", "errors", "tokens", "cost (USD)", "not judged"]
    rows = []
    for r in report.main:
        cells = [r.title, r.model, str(r.judged)]
        for column, _ in QUALITY:
            cells += [_fig(r.figures[column]), _ci(r.figures[column])]
        cells += [f"{r.coverage:.3f}", str(r.errors), str(r.tokens), f"{r.cost_usd:.4f}",
                  str(r.not_judged)]
        rows.append(cells)
    out["table2"] = (head, rows)
    titles = {r.row: r.title for r in report.main}
    out["table3"] = (["domain", *(titles[r] for r in report.per_domain)],
                     [[d, *(_opt(by.get(d)) for by in report.per_domain.values())]
                      for d in report.domains])
    out["table4"] = (["version", "judge", "n", "BalAcc", "Recall_fail", "Precision_pass", "G",
                      "G 95% CI"],
                     [[v.version, titles[v.row], str(v.n), f"{v.balanced_accuracy:.3f}",
                       f"{v.recall_fail:.3f}", f"{v.precision_pass:.3f}", _fig(v.gate_score),
                       _ci(v.gate_score)] for v in report.versions])
    ns = range(1, report.selection_n_max + 1)
    out["table5"] = (["selector", *(f"Success@{n}" for n in ns)],
                     [[titles.get(s.selector, s.selector), *(f"{v:.3f}" for v in s.success)]
                      for s in report.selection])
    out["mcnemar"] = (["A", "B", "n paired", "Acc A", "Acc B", "A right, B wrong",
                       "A wrong, B right", "p exact", "mid-p"],
                      [[titles[p.a], titles[p.b], str(p.n_paired), f"{p.accuracy_a:.3f}",
                        f"{p.accuracy_b:.3f}", str(p.a_right_b_wrong), str(p.a_wrong_b_right),
                        f"{p.p_exact:.4f}", f"{p.p_mid:.4f}"] for p in report.pairs])
    return out


CAPTIONS = {
    "table2": "Table 2. Judges on the held-out cases (95% intervals: Wilson; BalAcc bootstrap)",
    "table3": "Table 3. Accuracy per domain",
    "table4": "Table 4. JudgeSkill versions of the lineage, with the gate score G",
    "table5": "Table 5. Best-of-n selection, Success@n (with oracle and random)",
    "mcnemar": "Paired McNemar tests",
}


def render_markdown(report: ExperimentReport) -> str:
    lines = [f"# Experiment {report.plan}", "",
             f"Dataset {report.dataset}, split {report.split}; spent ${report.spent_usd:.4f}"
             + (f" of a ${report.budget_usd:.2f} budget" if report.budget_usd else "") + ".", ""]
    for name, (head, rows) in tables(report).items():
        lines += [f"## {CAPTIONS[name]}", ""]
        if name == "table5" and report.selection_note:
            lines += [report.selection_note, ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def render_csv(head: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(rows)
    return buffer.getvalue()


_TEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "\\": r"\textbackslash{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(report: ExperimentReport) -> str:
    """A standalone document of booktabs tables; each table can be pasted on its own."""
    parts = [r"\documentclass{article}", r"\usepackage{booktabs}", r"\usepackage{graphicx}",
             r"\begin{document}"]
    for name, (head, rows) in tables(report).items():
        if not rows:
            continue
        parts += [r"\begin{table}[ht]", r"\centering", r"\resizebox{\textwidth}{!}{%",
                  r"\begin{tabular}{l" + "r" * (len(head) - 1) + "}", r"\toprule",
                  " & ".join(tex_escape(h) for h in head) + r" \\", r"\midrule"]
        parts += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in rows]
        parts += [r"\bottomrule", r"\end{tabular}}",
                  r"\caption{" + tex_escape(CAPTIONS[name]) + "}",
                  r"\label{tab:" + name + "}", r"\end{table}"]
    parts.append(r"\end{document}")
    return "\n".join(parts) + "\n"


CI_SUFFIX = " 95% CI"


def with_intervals(head: list[str], rows: list[list[str]]
                   ) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """The table with each "X 95% CI" column folded into column X as (value, interval) cells,
    for the HTML page (the other forms keep one column each, for pasting)."""
    keep = [i for i, h in enumerate(head) if not h.endswith(CI_SUFFIX)]
    ci_of = {head.index(h.removesuffix(CI_SUFFIX)): i for i, h in enumerate(head)
             if h.endswith(CI_SUFFIX)}
    return ([head[i] for i in keep],
            [[(row[i], row[ci_of[i]] if i in ci_of else "") for i in keep] for row in rows])


def render_html(report: ExperimentReport, folder: Path) -> str:
    css = environment("judge_runner.runs", html=True).get_template("base.css.j2").render()
    links = {r.row: os.path.relpath(Path(r.run_dir) / "report.html", folder)
             for r in report.main}
    folded = {name: with_intervals(*table) for name, table in tables(report).items()}
    return environment("judge_runner.experiments", html=True).get_template(
        "experiment.html.j2").render(r=report, tables=folded, captions=CAPTIONS,
                                     links=links, css=Markup(css))


def write_report(report: ExperimentReport, folder: Path) -> Path:
    """Write every form of the report into `folder`; returns the HTML page's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REPORT_JSON).write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (folder / REPORT_MD).write_text(render_markdown(report), encoding="utf-8")
    (folder / REPORT_TEX).write_text(render_latex(report), encoding="utf-8")
    for name, (head, rows) in tables(report).items():
        (folder / f"{name}.csv").write_text(render_csv(head, rows), encoding="utf-8")
    html = folder / REPORT_HTML
    html.write_text(render_html(report, folder), encoding="utf-8")
    return html
