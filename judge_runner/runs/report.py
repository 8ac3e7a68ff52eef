"""Run reports: report.html (one self-contained page), report.md, and the terminal metrics table.

The HTML page embeds its CSS and SVG plots and loads nothing, so it opens offline. Per-case
products are read from the run's `cases/<id>/` folders; a missing file is shown as missing, it
does not stop the report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup
from rich.table import Table

from judge_runner.checklist import ChecklistMetrics
from judge_runner.core import Decision, Metrics
from judge_runner.files import write_whole
from judge_runner.judges import LOG_FILE, PLAN_FILE, VERDICT_FILE
from judge_runner.runs.plots import bar_chart, histogram, line_chart
from judge_runner.runs.records import CASES_OUT, CaseRecord, RunSummary
from judge_runner.runs.riskcov import risk_coverage_svg
from judge_runner.runs.select import SelectionResult
from judge_runner.templates import environment

HTML_FILE = "report.html"
MD_FILE = "report.md"
# (label, field) in display order; the same rows feed HTML, Markdown and the terminal table
SUMMARY_FIELDS = (
    ("balanced accuracy", "balanced_accuracy"),
    ("gate score G", "gate_score"),
    ("accuracy", "accuracy"),
    ("precision (pass)", "precision"),
    ("recall (pass)", "recall"),
    ("F1", "f1"),
    ("recall (fail)", "recall_fail"),
    ("coverage", "coverage"),
)


@dataclass(frozen=True)
class SummaryRow:
    name: str
    value: str
    ci: str


def summary_rows(m: Metrics) -> list[SummaryRow]:
    rows = [SummaryRow("cases", str(m.n), ""),
            SummaryRow("decided / error / abstain",
                       f"{m.n_decided} / {m.n_error} / {m.n_abstain}", "")]
    for label, field in SUMMARY_FIELDS:
        value: float = getattr(m, field)
        interval = m.ci.get(field)
        ci = f"[{interval.low:.3f}, {interval.high:.3f}] {interval.method}" if interval else ""
        flag = " (undefined)" if field in m.undefined else ""
        rows.append(SummaryRow(label, f"{value:.3f}{flag}", ci))
    return rows


def metrics_table(summary: RunSummary) -> Table:
    """The table `eval` prints: summary figures with intervals, then usage."""
    skill = f" · {summary.skill.label()}" if summary.skill else ""
    table = Table(title=f"{summary.judge}{skill} · {summary.n_cases} cases", title_justify="left")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95 % interval", justify="right")
    if summary.metrics is not None:
        for row in summary_rows(summary.metrics):
            table.add_row(row.name, row.value, row.ci)
        m = summary.metrics
        table.add_row("tp / fp / tn / fn", f"{m.tp} / {m.fp} / {m.tn} / {m.fn}", "")
    else:
        decided = ", ".join(f"{k} {v}" for k, v in summary.decisions.items())
        table.add_row("decisions (no labels)", decided, "")
    if summary.checklist is not None:
        table.add_row(*_checklist_row(summary.checklist))
    table.add_row("unsupported verdicts / unverified quotes",
                  f"{summary.n_unsupported} / {summary.n_unverified_quotes}", "")
    u = summary.usage
    table.add_row("tokens in / out", f"{u.prompt_tokens:,} / {u.output_tokens:,}", "")
    table.add_row("model calls / failed / retries", f"{u.calls} / {u.failed_calls} / {u.retries}",
                  "")
    table.add_row("cost (USD)", f"{u.cost_usd:.4f}", "")
    return table


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return f"({path.name} missing)"
    except (OSError, UnicodeDecodeError) as exc:
        return f"({path.name} unreadable: {exc})"


def _case_view(run_dir: Path, record: CaseRecord) -> dict[str, object]:
    folder = run_dir / CASES_OUT / record.case_id
    log_text = _read(folder / LOG_FILE)
    pretty_log = []
    for line in log_text.splitlines():
        try:
            pretty_log.append(json.dumps(json.loads(line), indent=1, ensure_ascii=False))
        except json.JSONDecodeError:
            pretty_log.append(line)
    return {
        "r": record,
        "plan": _read(folder / PLAN_FILE),
        "log": "\n".join(pretty_log),
        "log_lines": sum(1 for line in log_text.splitlines() if line.startswith("{")),
        "verdict": _read(folder / VERDICT_FILE) if (folder / VERDICT_FILE).is_file()
        else record.verdict.model_dump_json(indent=2),
    }


def _uncovered(records: list[CaseRecord]) -> dict[str, dict[str, int]]:
    """Abstentions and errors by true label, for the confusion-matrix side columns."""
    out = {"pass": {"abstain": 0, "error": 0}, "fail": {"abstain": 0, "error": 0}}
    for r in records:
        if r.label is not None and not r.decision.is_decided:
            out[r.label.value][r.decision.value] += 1
    return out


def render_html(run_dir: Path, summary: RunSummary, records: list[CaseRecord]) -> str:
    env = environment("judge_runner.runs", html=True)
    m = summary.metrics
    domain_plot = ""
    if m is not None:
        domain_plot = bar_chart(
            [(name, d.accuracy, f"{d.accuracy:.2f} ({d.correct}/{d.n_decided})")
             for name, d in m.per_domain.items()],
            title="Accuracy per domain")
    decision_plot = bar_chart(
        [(d.value, float(summary.decisions.get(d.value, 0)), str(summary.decisions.get(d.value, 0)))
         for d in Decision],
        max_value=float(max(1, *summary.decisions.values())), title="Decisions")
    durations = [r.verdict.duration_s for r in records]
    return env.get_template("report.html.j2").render(
        s=summary, m=m, css=Markup(env.get_template("base.css.j2").render()),
        summary_rows=summary_rows(m) if m is not None else [],
        uncovered=_uncovered(records),
        domain_plot=Markup(domain_plot), decision_plot=Markup(decision_plot),
        duration_plot=Markup(histogram(durations, bins=8, title="Seconds per case", unit="s")),
        risk_plot=Markup(risk_coverage_svg(summary.risk_coverage))
        if summary.risk_coverage is not None else "",
        stage_plots=[(name, Markup(risk_coverage_svg(curve, plot_id=f"risk-coverage-{n}")))
                     for n, (name, curve) in enumerate(summary.stage_curves.items(), start=1)],
        cases=[_case_view(run_dir, r) for r in records],
    )


def render_markdown(summary: RunSummary, records: list[CaseRecord]) -> str:
    lines = [f"# Judge `{summary.judge}` on {summary.n_cases} cases", "",
             f"Dataset `{summary.dataset}`, config `{summary.config_hash[:12]}`.", ""]
    m = summary.metrics
    if m is not None:
        lines += ["| metric | value | 95 % interval |", "|---|---:|---:|"]
        lines += [f"| {r.name} | {r.value} | {r.ci} |" for r in summary_rows(m)]
        lines += ["", "## Confusion matrix (pass is positive)", "",
                  "| label \\ prediction | pass | fail |", "|---|---:|---:|",
                  f"| pass | {m.tp} | {m.fn} |", f"| fail | {m.fp} | {m.tn} |", "",
                  "## Per domain", "", "| domain | cases | decided | accuracy |",
                  "|---|---:|---:|---:|"]
        lines += [f"| {name} | {d.n} | {d.n_decided} | {d.accuracy:.3f} |"
                  for name, d in m.per_domain.items()]
    lines += _staged_markdown(summary)
    lines += _checklist_markdown(summary)
    lines += ["", "## Evidence", "",
              f"- unsupported verdicts (citations did not resolve): {summary.n_unsupported}",
              f"- unverified evidence quotes (not found in the cited output): "
              f"{summary.n_unverified_quotes}"]
    u = summary.usage
    lines += ["", "## Cost", "", f"- model calls: {u.calls} answered, {u.failed_calls} failed "
              f"for good, {u.retries} retries (failed calls' included)",
              f"- tokens: {u.input_tokens:,} in, {u.cache_creation_input_tokens:,} cache write, "
              f"{u.cache_read_input_tokens:,} cache read, {u.output_tokens:,} out",
              f"- cost: ${u.cost_usd:.4f}", "", "## Per case", "",
              "| case | decision | turns | tokens in / out | calls (failed) | retries | wall s |",
              "|---|---|---:|---:|---:|---:|---:|"]
    lines += [_case_row(r) for r in records]
    lines += ["", "## Misjudged and undecided cases", ""]
    flagged = [r for r in records if r.correct is False or not r.decision.is_decided]
    lines += [f"- `{r.case_id}` judged {r.decision.value}"
              + (f", label {r.label.value}" if r.label else "")
              + (f": {r.verdict.error}" if r.verdict.error else "") for r in flagged] or ["(none)"]
    return "\n".join(lines) + "\n"


def _staged_markdown(summary: RunSummary) -> list[str]:
    """The per-stage table of a cascade and the risk–coverage operating point, when present."""
    lines: list[str] = []
    if summary.guarantee is not None:
        g = summary.guarantee
        lines += ["", "## What is promised", "", g.statement, "",
                  f"On this run: coverage {g.coverage:.3f} of {g.n_labeled} labelled cases"
                  + (f", agreement on decided {g.agreement:.3f}" if g.agreement is not None
                     else "") + "."]
    st = summary.stages
    if st is not None:
        lines += ["", "## Stages", "", "| stage | cases | share | decided | accuracy | calls | "
                  "cost (USD) |", "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {name} | {f.n} | {f.share:.3f} | {f.n_decided} | {f.accuracy:.3f} | "
                  f"{f.usage.calls} | {f.usage.cost_usd:.4f} |" for name, f in st.stages.items()]
        if st.model_tokens_all is not None:
            lines += ["", f"Tokens {st.tokens:,} against an estimated {st.model_tokens_all:,} "
                      f"for the last stage ({st.last_stage}) on every case"
                      + (f" (saving {st.saving:.1%})." if st.saving is not None else ".")]
    rc = summary.risk_coverage
    if rc is not None:
        lines += ["", "## Risk–coverage", "",
                  f"Operating point: coverage {rc.operating_coverage:.3f}, accuracy on decided "
                  f"{rc.operating_accuracy:.3f} ({rc.n} labelled cases)."]
    return lines


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _checklist_row(k: ChecklistMetrics) -> tuple[str, str, str]:
    """The terminal row of a checklist run: AUC of raw and outcome-gated credit."""
    aucs = [_num(k.auc[name].auc) if name in k.auc else "–"
            for name in ("raw_credit", "partial_credit", "gated_credit")]
    return "checklist AUC raw / partial / gated", " / ".join(aucs), ""


def _checklist_markdown(summary: RunSummary) -> list[str]:
    """The checklist judge's partial-credit figures, when the run has them."""
    k = summary.checklist
    if k is None:
        return []
    lines = ["", "## Checklist partial credit", "",
             f"{k.n_cases} cases with item judgments, {k.n_labeled} labelled; raw credit from "
             "the judgments alone, the other scores include the outcome step.", "",
             "| score | AUC | pass | fail | unscored |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {name} | {_num(a.auc)} | {a.n_pass} | {a.n_fail} | {a.n_unscored} |"
              for name, a in k.auc.items()]
    lines += ["", f"Mean coverage {_num(k.mean_coverage)}."]
    return lines


def _case_row(r: CaseRecord) -> str:
    v = r.verdict
    turns = v.details.get("turns", "")
    u = v.usage
    return (f"| `{r.case_id}` | {r.decision.value} | {turns} | {u.prompt_tokens:,} / "
            f"{u.output_tokens:,} | {u.calls} ({u.failed_calls}) | {u.retries} | "
            f"{v.duration_s:.1f} |")


def write_reports(run_dir: Path, summary: RunSummary, records: list[CaseRecord]) -> Path:
    """Write report.html and report.md into `run_dir`; returns the path of report.html."""
    html_path = run_dir / HTML_FILE
    write_whole(html_path, render_html(run_dir, summary, records))
    write_whole(run_dir / MD_FILE, render_markdown(summary, records))
    return html_path


def render_selection_html(result: SelectionResult) -> str:
    env = environment("judge_runner.runs", html=True)
    plot = line_chart([(c.selector, [(n + 1.0, v) for n, v in enumerate(c.sampled)])
                       for c in result.curves], x_label="n (trajectories per task)",
                      y_label="Success@n")
    return env.get_template("select.html.j2").render(
        r=result, css=Markup(env.get_template("base.css.j2").render()), plot=Markup(plot),
        ns=list(range(1, result.n_max + 1)))


def render_selection_markdown(result: SelectionResult) -> str:
    ns = range(1, result.n_max + 1)
    lines = ["# Success@n", "",
             f"{result.tasks} tasks, {result.trajectories} trajectories, {result.repeats} "
             f"paired repeats, seed {result.seed}; exact expectation in parentheses.", "",
             "| selector | " + " | ".join(f"n={n}" for n in ns) + " |",
             "|---|" + "---:|" * result.n_max]
    lines += ["| " + c.selector + (" (by score)" if c.rule == "score" else "") + " | "
              + " | ".join(f"{s:.3f} ({e:.3f})" for s, e in zip(c.sampled, c.expected, strict=True))
              + " |" for c in result.curves]
    return "\n".join(lines) + "\n"


def selection_table(result: SelectionResult) -> Table:
    table = Table(title="Success@n (sampled)", title_justify="left")
    table.add_column("selector")
    for n in range(1, result.n_max + 1):
        table.add_column(f"n={n}", justify="right")
    for c in result.curves:
        table.add_row(c.selector, *(f"{v:.3f}" for v in c.sampled))
    return table
