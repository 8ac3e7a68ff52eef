"""CLI: `experiment estimate | run | report PLAN`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from judge_runner.cli.support import fail, interrupts_reported

if TYPE_CHECKING:
    from judge_runner.experiments import Plan, PlanEstimate, PlanRun

_stdout = Console()
app = typer.Typer(help="A plan of judges over one case set: estimate, run within a budget, "
                       "report the paper's tables.", no_args_is_help=True)

PlanArg = Annotated[Path, typer.Argument(help="Plan file (TOML).")]
BudgetOpt = Annotated[float | None, typer.Option(
    "--budget", min=0.0, help="Total USD for the plan, instead of the plan's budget_usd.")]


def _load(path: Path, budget: float | None = None) -> Plan:
    from judge_runner.experiments import PlanError, load_plan

    try:
        plan = load_plan(path)
    except PlanError as exc:
        raise fail(str(exc)) from exc
    return plan if budget is None else plan.model_copy(update={"budget_usd": budget})


def _tokens(low: float, high: float) -> str:
    return f"{int(low):,}–{int(high):,}"


def estimate_table(est: PlanEstimate) -> Table:
    table = Table(title=f"Estimate of plan {est.plan} (no model called)", title_justify="left")
    for col in ("row", "judge", "cases", "stored", "to judge", "input tokens", "output tokens",
                "USD", "basis"):
        table.add_column(col, justify="left" if col in ("row", "judge", "basis") else "right")
    for r in est.rows:
        basis = r.basis + (f"; unpriced: {', '.join(r.unpriced)}" if r.unpriced else "")
        table.add_row(r.row, r.judge, str(r.cases), str(r.done), str(r.todo),
                      _tokens(r.input_tokens.low, r.input_tokens.high),
                      _tokens(r.output_tokens.low, r.output_tokens.high),
                      f"{r.cost_usd.low:.4f}–{r.cost_usd.high:.4f}", basis)
    table.add_row("total", "", str(sum(r.cases for r in est.rows)),
                  str(sum(r.done for r in est.rows)), str(sum(r.todo for r in est.rows)),
                  _tokens(est.input_tokens.low, est.input_tokens.high),
                  _tokens(est.output_tokens.low, est.output_tokens.high),
                  f"{est.cost_usd.low:.4f}–{est.cost_usd.high:.4f}", "")
    return table


@app.command("estimate")
def estimate_command(
    plan_file: PlanArg,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the estimate.")]
    = None,
) -> None:
    """Cases, tokens and dollars per row and in total, as a range; no model is called."""
    from judge_runner.experiments import PlanError, estimate, prepare

    plan = _load(plan_file)
    try:
        est = estimate(prepare(plan, build=False))
    except PlanError as exc:
        raise fail(str(exc)) from exc
    _stdout.print(estimate_table(est))
    for row in (r for r in est.rows if r.run_dir is None):
        _stdout.print(f"{row.row}: its judge cannot be built here ({row.note}), so its run "
                      "directory is unknown and no finished case of it is used",
                      highlight=False, soft_wrap=True)
    if plan.budget_usd is not None:
        _stdout.print(f"budget ${plan.budget_usd:.2f}; already spent ${est.spent_usd:.4f}",
                      highlight=False)
    if json_out is not None:
        json_out.write_text(est.model_dump_json(indent=2) + "\n", encoding="utf-8")


@app.command("run")
def run_command(
    plan_file: PlanArg,
    budget: BudgetOpt = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Judge every row's missing cases within the budget, then write the report.

    Each row is an ordinary run directory (the one `eval` uses for the same configuration), so
    finished cases are never judged again; cases the budget leaves are listed as not judged,
    and the same command with a larger budget judges them.
    """
    from judge_runner.experiments import (
        PlanError,
        build_report,
        estimate,
        prepare,
        run_plan,
        write_report,
        write_run,
    )
    from judge_runner.runs import ConfigMismatchError

    plan = _load(plan_file, budget)
    with interrupts_reported(f"the rows' run directories under {plan.output_dir}"):
        try:
            study = prepare(plan, build=True)
            result = run_plan(study, estimate(study), progress=progress)
        except (PlanError, ConfigMismatchError) as exc:
            raise fail(str(exc)) from exc
    write_run(plan.experiment_dir, result)
    html = write_report(build_report(plan, result), plan.experiment_dir)
    _print_outcome(result)
    _stdout.print(f"report: {html}", highlight=False, soft_wrap=True)


def _print_outcome(result: PlanRun) -> None:
    table = Table(title=f"Plan {result.plan}", title_justify="left")
    for col in ("row", "cases", "judged now", "stored before", "not judged", "tokens", "USD",
                "run directory"):
        table.add_column(col, justify="left" if col in ("row", "run directory") else "right")
    for r in result.rows:
        table.add_row(r.row, str(r.cases), str(r.judged_now), str(r.resumed),
                      str(len(r.not_judged)), f"{r.usage.total_tokens:,}",
                      f"{r.usage.cost_usd:.4f}", r.run_dir)
    _stdout.print(table)
    cap = f" of ${result.budget_usd:.2f}" if result.budget_usd is not None else ""
    _stdout.print(f"spent ${result.spent_usd:.4f}{cap}", highlight=False)
    if result.stopped_by_budget:
        _stdout.print(f"[yellow]budget reached:[/] {result.not_judged} case(s) not judged "
                      "(listed in run.json); raise the budget and run again to judge them",
                      highlight=False)
        for r in result.rows:
            if r.not_judged:
                _stdout.print(f"  {r.row}: not judged: {', '.join(r.not_judged)}",
                              highlight=False, soft_wrap=True)


@app.command("report")
def report_command(plan_file: PlanArg) -> None:
    """Write the report (HTML, Markdown, CSV, LaTeX, JSON) from the rows' run directories, as
    the last `experiment run` of the plan left them."""
    from judge_runner.experiments import RUN_FILE, PlanRun, build_report, write_report

    plan = _load(plan_file)
    path = plan.experiment_dir / RUN_FILE
    if not path.is_file():
        raise fail(f"{path} not found: run `judge-runner experiment run {plan_file}` first")
    try:
        result = PlanRun.model_validate_json(path.read_text(encoding="utf-8"))
        html = write_report(build_report(plan, result), plan.experiment_dir)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
    _stdout.print(f"report: {html}", highlight=False, soft_wrap=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="experiment")
