"""`judge-runner evolve ...`: start or resume an evolution run, and report on one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from judge_runner.cli.judge_options import SandboxOpt, build_or_exit, check_or_exit, judge_options
from judge_runner.cli.support import echo, fail, interrupts_reported, require_complete
from judge_runner.evolve.state import OptimizerKind
from judge_runner.judges.registry import uses_flag
from judge_runner.sandbox import SandboxKind

if TYPE_CHECKING:  # the implementation loads only when a command runs (fast CLI start)
    from judge_runner.evolve.optimizer import Optimizer

OPTIMIZER_TRANSCRIPT = Path("optimizer") / "transcript.jsonl"

evolve_app = typer.Typer(help="Evolve a JudgeSkill through the fixed gate.", no_args_is_help=True,
                         subcommand_metavar="[report RUN_DIR]")


def _optimizer(
    name: OptimizerKind, model: str | None, base_url: str | None, run_dir: Path, max_tokens: int
) -> Optimizer:
    if name is OptimizerKind.RULES:
        from judge_runner.evolve.rules_optimizer import RulesOptimizer

        return RulesOptimizer()
    if not model:
        raise fail("--optimizer model needs --optimizer-model NAME (or use --optimizer rules "
                   "with --judge rules)")
    from judge_runner.evolve.optimizer import ModelOptimizer
    from judge_runner.models import ModelError, make_client

    try:
        client = make_client(base_url=base_url, models=[model])
    except ModelError as exc:  # e.g. no API key: a configuration problem, said in one line
        raise fail(f"--optimizer-model {model}: {exc}") from None
    return ModelOptimizer(client, model, run_dir / OPTIMIZER_TRANSCRIPT, max_tokens=max_tokens)


@evolve_app.callback(invoke_without_command=True)
def evolve_cmd(
    ctx: typer.Context,
    skill: Annotated[Path | None, typer.Option(help="Starting JudgeSkill directory.")] = None,
    dev: Annotated[
        Path | None,
        typer.Option(help="Dev split: a file of case ids, or a bench dir holding dev.txt."),
    ] = None,
    gate: Annotated[
        Path | None,
        typer.Option(help="Gate split: a file of case ids (default gate.txt beside dev)."),
    ] = None,
    run_dir: Annotated[
        Path | None, typer.Option(help="Evolution state and outputs (resumable).")
    ] = None,
    dataset: Annotated[
        Path | None,
        typer.Option(help="Dataset directory (default: the one in the bench manifest)."),
    ] = None,
    eval_split: Annotated[
        Path | None,
        typer.Option("--eval", help="Eval split to keep out (default: eval.txt beside dev)."),
    ] = None,
    judge: Annotated[str, typer.Option(help="Judge name or module:factory.")] = "agent",
    judge_model: Annotated[str | None, typer.Option(help="Model of the judge.")] = None,
    optimizer: Annotated[
        OptimizerKind | None, typer.Option(help="Default: rules for --judge rules, else model.")
    ] = None,
    optimizer_model: Annotated[str | None, typer.Option(help="Model of the optimizer.")] = None,
    optimizer_max_tokens: Annotated[
        int, typer.Option(min=256, help="Cap on each answer of the model optimizer.")
    ] = 16_000,
    brief_tokens: Annotated[
        int, typer.Option(min=200, help="Bound on each strategy brief, in tokens.")
    ] = 6000,
    base_url: Annotated[str | None, typer.Option(help="Messages API base URL.")] = None,
    sandbox: SandboxOpt = None,
    rounds: Annotated[int, typer.Option(min=1)] = 3,
    sample_size: Annotated[int, typer.Option(min=1, help="Dev cases judged per round.")] = 40,
    seed: Annotated[int, typer.Option()] = 0,
    budget_usd: Annotated[float | None, typer.Option(help="Stop when spend reaches this.")] = None,
    budget_calls: Annotated[int | None, typer.Option(help="Stop after this many calls.")] = None,
    max_candidates: Annotated[int | None, typer.Option(help="Propose at most this many.")] = None,
    require_paired_test: Annotated[
        bool, typer.Option(help="Promote only when McNemar on the gate has p ≤ --alpha.")
    ] = False,
    alpha: Annotated[float, typer.Option()] = 0.05,
    concurrency: Annotated[int, typer.Option(min=1)] = 4,
) -> None:
    """Start an evolution run, or resume the one in --run-dir (`evolve report DIR` reports)."""
    if ctx.invoked_subcommand is not None:
        return
    from judge_runner.cases import Dataset
    from judge_runner.evolve.evaluate import SkillEvaluator
    from judge_runner.evolve.loop import Evolution, EvolveError
    from judge_runner.evolve.report import REPORT_FILE, render_report
    from judge_runner.evolve.splits import resolve_splits
    from judge_runner.evolve.state import EvolveConfig
    from judge_runner.judges import Judge

    missing = [flag for flag, value in (("--skill DIR", skill), ("--dev BENCH_DIR", dev),
                                        ("--run-dir DIR", run_dir)) if value is None]
    if missing or skill is None or dev is None or run_dir is None:
        raise fail(f"evolve needs {', '.join(missing)} (or `evolve report RUN_DIR` to report "
                   "on a run)")
    # Every candidate is a JudgeSkill: a judge that takes none would pay to gate skills it
    # never reads. Refused here, before anything is judged.
    check_or_exit(judge, judge_options(skill=skill, model=judge_model, sandbox=sandbox))
    # --base-url serves the optimizer and, where it talks to a model, the judge: a rules judge
    # with a model optimizer is a valid pairing, so the judge gets the URL only if it takes one.
    judge_base_url = base_url if uses_flag(judge, "base_url") else None
    try:
        splits = resolve_splits(dev, gate, eval_split, dataset)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    ds = Dataset(splits.dataset)
    require_complete(ds)
    optimizer_name = optimizer or (OptimizerKind.RULES if judge == "rules" else OptimizerKind.MODEL)
    config = EvolveConfig(
        dataset=str(splits.dataset),
        skill=str(skill),
        judge=judge,
        judge_model=judge_model,
        optimizer=optimizer_name,
        optimizer_model=optimizer_model,
        base_url=base_url,
        sandbox=sandbox or SandboxKind.AUTO,
        dev_ids=splits.dev,
        gate_ids=splits.gate,
        rounds=rounds,
        sample_size=sample_size,
        seed=seed,
        budget_usd=budget_usd,
        budget_calls=budget_calls,
        max_candidates=max_candidates,
        require_paired_test=require_paired_test,
        paired_alpha=alpha,
        brief_token_bound=brief_tokens,
        optimizer_max_tokens=optimizer_max_tokens,
        concurrency=concurrency,
    )

    def make_judge(skill_dir: Path) -> Judge:
        return build_or_exit(
            judge,
            judge_options(
                skill=skill_dir, model=judge_model, base_url=judge_base_url, sandbox=sandbox
            ),
        )

    # Both the judge and the optimizer are built once before any work, so a missing key or a
    # broken skill is one line (exit 2) here, never a traceback in the middle of a round.
    make_judge(skill)
    the_optimizer = _optimizer(optimizer_name, optimizer_model, base_url, run_dir,
                               optimizer_max_tokens)
    evolution = Evolution(
        config=config,
        run_dir=run_dir,
        dataset=ds,
        evaluator=SkillEvaluator(ds, make_judge, run_dir, concurrency=concurrency),
        optimizer=the_optimizer,
        skills_root=skill.parent,
    )
    # An interrupt is said as eval says it, with the same exit statuses.
    with interrupts_reported(str(run_dir), "the evolution state is kept in", "resume it"):
        try:
            state = evolution.run()
        except EvolveError as exc:
            raise fail(str(exc)) from None
    text = render_report(run_dir, state)
    (run_dir / REPORT_FILE).write_text(text, encoding="utf-8")
    echo(text)


@evolve_app.command("report")
def report_cmd(
    run_dir: Annotated[Path, typer.Argument(help="An evolution run directory.")],
) -> None:
    """Versions table, every candidate's gate figures, promotions with diffs, and spend."""
    from judge_runner.evolve.report import REPORT_FILE, render_report
    from judge_runner.evolve.state import EvolveState

    state = EvolveState.load(run_dir)
    if state is None:
        raise fail(f"no evolution state in {run_dir}")
    text = render_report(run_dir, state)
    (run_dir / REPORT_FILE).write_text(text, encoding="utf-8")
    echo(text)


def register(app: typer.Typer) -> None:
    app.add_typer(evolve_app, name="evolve")
