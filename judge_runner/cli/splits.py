"""CLI: `bench build` and `bench gate`.

The split builder, gate and dataset code are imported inside the commands: every `judge-runner`
call, `--help` included, imports this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cli.support import fail, not_a_dataset, require_complete

# Defaults of splits.build.DEFAULT_EVAL_FRACTION and cases.validate.ValidationLimits, written
# out so that listing the options imports neither; tests/splits/test_commands.py checks them.
EVAL_FRACTION = 203 / 681
MAX_TRAJECTORY_TOKENS = 150_000
MAX_STEPS = 1500

SMALL_SPLIT = 30  # fewer cases than this in a split: its figures are mostly noise


def label_counts(by_label: dict[str, int]) -> str:
    """`4 fail, 4 pass`: label counts as words, not a dict."""
    return ", ".join(f"{n} {label}" for label, n in sorted(by_label.items())) or "no labels"


bench_app = typer.Typer(name="bench", help="Build benchmark splits and the evolution gate.",
                        no_args_is_help=True)


@bench_app.command("build")
def build_command(
    dataset: Annotated[Path, typer.Argument(help="Labeled dataset directory.")],
    out: Annotated[Path | None, typer.Option("--out", help="Bench dir (default DATASET/bench).")]
    = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    eval_size: Annotated[int | None, typer.Option(
        "--eval-size", help="Target eval cases (overrides --eval-fraction).")] = None,
    eval_fraction: Annotated[float, typer.Option(
        "--eval-fraction", help="Target eval share of the kept pool (default 203/681).")]
    = EVAL_FRACTION,
    max_tokens: Annotated[int, typer.Option(
        "--max-tokens", help="Drop cases whose trajectory exceeds this token estimate.")]
    = MAX_TRAJECTORY_TOKENS,
    max_steps: Annotated[int, typer.Option("--max-steps", help="Drop cases over this many steps.")]
    = MAX_STEPS,
) -> None:
    """Filter the pool and split it task-disjoint into dev.txt / eval.txt with a manifest."""
    from judge_runner.cases.dataset import Dataset
    from judge_runner.cases.validate import ValidationLimits
    from judge_runner.splits.build import SplitError, build_splits
    from judge_runner.splits.files import BENCH_DIR

    ds = Dataset(dataset)
    if not ds.cases_dir.is_dir():
        raise fail(not_a_dataset(dataset, ds))
    require_complete(ds)
    target = out if out is not None else dataset / BENCH_DIR
    try:
        built = build_splits(ds, target, seed=seed, eval_size=eval_size,
                             eval_fraction=eval_fraction,
                             limits=ValidationLimits(max_trajectory_tokens=max_tokens,
                                                     max_steps=max_steps))
    except SplitError as exc:
        raise fail(str(exc)) from exc
    m = built.manifest
    if m.funnel is not None:
        from judge_runner.splits.funnel import table

        typer.echo(table(m.funnel))
    for name, c in m.splits.items():
        typer.echo(f"{name}: {c.n} cases, {c.tasks} tasks, {len(c.by_domain)} domains, "
                   f"labels {label_counts(c.by_label)}")
    kept = sum(c.n for c in m.splits.values())
    total = len(ds.case_ids())
    in_dropped_tasks = total - kept - len(m.dropped)
    typer.echo(f"kept {kept} of {total} cases: dropped {len(m.dropped)} over the limits and "
               f"{in_dropped_tasks} in {len(m.dropped_tasks)} single-outcome tasks (all pass "
               f"or all fail); written to {target}")
    for name, c in m.splits.items():
        if c.n < SMALL_SPLIT:
            typer.secho(f"warning: the {name} split has only {c.n} cases, so one case moves its "
                        f"accuracy by {1 / max(c.n, 1):.2f} and its figures say little; import "
                        f"more trials (at least {SMALL_SPLIT} per split)", err=True,
                        fg=typer.colors.YELLOW)


@bench_app.command("gate")
def gate_command(
    dev: Annotated[Path, typer.Option("--dev", help="Bench dir with dev.txt and manifest.json.")],
    size: Annotated[int, typer.Option("--size")] = 36,
    n_fail: Annotated[int, typer.Option("--fail")] = 27,
    n_pass: Annotated[int, typer.Option("--pass")] = 9,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    baseline: Annotated[Path | None, typer.Option(
        "--baseline", help="A run dir of the baseline judge over the dev split.")] = None,
    dataset: Annotated[Path | None, typer.Option(
        "--dataset", help="Dataset dir (default: the one recorded in manifest.json).")] = None,
) -> None:
    """Draw the fixed gate (gate.txt, gate.json) from the dev split.

    Refuses (exit 2) a dataset that changed since `bench build`: its dev split would be stale."""
    from judge_runner.runs.records import load_records
    from judge_runner.splits.build import SplitError, split_pool
    from judge_runner.splits.files import read_split
    from judge_runner.splits.gate import GATE_FILE, build_gate
    from judge_runner.splits.manifest import verified_dataset

    if not (dev / "dev.txt").is_file():
        raise fail(f"{dev}: no dev.txt; run `judge-runner bench build` first")
    try:
        ds = verified_dataset(dev, dataset)
        require_complete(ds)
        dev_pool = split_pool(ds, read_split(dev / "dev.txt"))
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
    try:
        records = load_records(baseline) if baseline is not None else None
        gate = build_gate(dev_pool, dev, size=size, n_fail=n_fail, n_pass=n_pass, seed=seed,
                          baseline=records, baseline_name=str(baseline or ""))
    except (SplitError, FileNotFoundError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"gate: {gate.counts.n} cases ({label_counts(gate.counts.by_label)}), families "
               f"covered {gate.families_covered}/{gate.families_in_pool}; written to "
               f"{dev / GATE_FILE}")
    if gate.baseline is not None:
        b = gate.baseline
        typer.echo(f"baseline accuracy {b.gate_accuracy:.3f} on the gate vs "
                   f"{b.full_accuracy:.3f} on dev ({b.accuracy_diff:+.3f}); balanced accuracy "
                   f"{b.gate_balanced_accuracy:.3f} vs {b.full_balanced_accuracy:.3f} "
                   f"({b.balanced_accuracy_diff:+.3f})")


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app)
