"""CLI: `eval`, `compare`, `verdicts`, `select`, `calibrate`."""

from __future__ import annotations

import hashlib
import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from judge_runner.cases.dataset import Dataset
from judge_runner.cli.case_ids import resolve_split
from judge_runner.cli.judge_options import JudgeName, build_or_exit, with_judge_options
from judge_runner.cli.support import (
    fail,
    interrupts_reported,
    io_failure,
    not_a_dataset,
    require_complete,
    shown,
)
from judge_runner.core import CASES_DIR
from judge_runner.judges import JudgeOptions
from judge_runner.judges.base import Judge
from judge_runner.runs.compare import Comparison, compare_records
from judge_runner.runs.records import VERDICTS_FILE, load_records, load_summary
from judge_runner.runs.report import (
    HTML_FILE,
    metrics_table,
    render_selection_html,
    render_selection_markdown,
    selection_table,
)
from judge_runner.runs.runner import MissingCasesError, RunResult, run_eval
from judge_runner.runs.select import scored_runs, select
from judge_runner.runs.store import ConfigMismatchError, run_dir_name

_stdout = Console()
_stderr = Console(stderr=True)

ConcurrencyOpt = Annotated[int, typer.Option("--concurrency", "-c", min=1,
                                             help="Cases judged at the same time.")]
RunDirOpt = Annotated[Path | None, typer.Option(
    "--run-dir", help="Run directory (default runs/<judge>-<split>-<config hash>).")]
RetryOpt = Annotated[bool, typer.Option(
    "--retry-errors", help="Judge again the cases whose stored verdict is an error.")]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress")]


def _default_run_dir(judge: Judge, split: str) -> Path:
    return Path("runs") / run_dir_name(judge.name, judge.config(), split)


def execute(
    judge: Judge, dataset: Dataset, case_ids: list[str], run_dir: Path, concurrency: int,
    retry_errors: bool, progress: bool,
) -> RunResult:
    with interrupts_reported(str(run_dir)):
        try:
            return run_eval(judge, dataset, case_ids, run_dir, concurrency=concurrency,
                            progress=progress, retry_errors=retry_errors)
        except (MissingCasesError, ConfigMismatchError) as exc:
            raise fail(str(exc)) from exc
        except (OSError, sqlite3.Error) as exc:  # a full disk: the store keeps what was judged
            raise io_failure(exc, f"judging into {run_dir}", "the verdicts stored so far are "
                             "kept; free space and run the same command again to judge the "
                             "rest") from None


@with_judge_options
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="Dataset directory (with cases/).")],
    judge: JudgeName,
    split: Annotated[str | None, typer.Option(
        "--split", help="eval | dev | gate (from --bench) or a file of case ids; default all.")]
    = None,
    bench: Annotated[Path | None, typer.Option(
        "--bench", help="Bench directory holding <split>.txt (default DATASET/bench).")] = None,
    *,
    options: JudgeOptions,
    concurrency: ConcurrencyOpt = 4,
    run_dir: RunDirOpt = None,
    retry_errors: RetryOpt = False,
    progress: ProgressOpt = True,
) -> None:
    """Judge a dataset (or one split of it) and report metrics against its labels.

    Re-running the same command resumes: cases already judged with the same configuration are
    not judged again.
    """
    ds = Dataset(dataset)
    if not ds.cases_dir.is_dir():
        raise fail(not_a_dataset(dataset, ds))
    require_complete(ds)
    split_name, case_ids = resolve_split(ds, split, bench)
    the_judge = build_or_exit(judge, options)
    out = run_dir if run_dir is not None else _default_run_dir(the_judge, split_name)
    result = execute(the_judge, ds, case_ids, out, concurrency, retry_errors, progress)
    _stdout.print(metrics_table(result.summary))
    _stdout.print(f"report: {out / HTML_FILE}", highlight=False, soft_wrap=True)


def compare_command(
    run_a: Annotated[Path, typer.Argument(help="Baseline run directory.")],
    run_b: Annotated[Path, typer.Argument(help="Candidate run directory.")],
    out: Annotated[Path | None, typer.Option("--out", help="Also write the comparison JSON.")]
    = None,
) -> None:
    """Paired comparison of two runs: McNemar (exact, mid-p), per-domain deltas, changed cases."""
    try:
        comparison = compare_records(load_records(run_a), load_records(run_b),
                                     str(run_a), str(run_b))
    except FileNotFoundError as exc:
        raise fail(str(exc)) from exc
    for tag, run in (("A", run_a), ("B", run_b)):
        _stdout.print(f"{tag}: {run} — {describe_run(run)}", highlight=False, soft_wrap=True)
    print_comparison(comparison)
    if out is not None:
        out.write_text(comparison.model_dump_json(indent=2) + "\n", encoding="utf-8")


def describe_run(run_dir: Path) -> str:
    """`rules · judgeskills/v1 (judge-skill v1, 1a2b...) · config 0a1b...`: which judge and
    JudgeSkill made a run, read from its metrics.json."""
    try:
        summary = load_summary(run_dir)
    except (OSError, ValueError):
        return "no metrics.json (judge and JudgeSkill unknown)"
    skill = summary.skill.label() if summary.skill else "no JudgeSkill"
    return f"{summary.judge} · {skill} · config {summary.config_hash[:12]}"


def print_comparison(c: Comparison) -> None:
    head = Table(title="A vs B on shared cases", title_justify="left")
    for col in ("", "A", "B"):
        head.add_column(col, justify="right" if col else "left")
    head.add_row("run", shown(c.run_a), shown(c.run_b))
    head.add_row("accuracy (paired)", f"{c.accuracy_a:.3f}", f"{c.accuracy_b:.3f}")
    _stdout.print(head)
    _stdout.print(
        f"shared {c.n_shared}, paired {c.n_paired} (excluded {c.n_excluded} with an error or "
        f"abstention, {c.only_a} only in A, {c.only_b} only in B)\n"
        f"McNemar: A right/B wrong b={c.test.b}, A wrong/B right c={c.test.c}, "
        f"exact p={c.test.p_exact:.4f}, mid-p={c.test.p_mid:.4f}", highlight=False)
    domains = Table(title="Per-domain accuracy", title_justify="left")
    for col in ("domain", "n", "A", "B", "B − A"):
        domains.add_column(col, justify="left" if col == "domain" else "right")
    for name, d in c.per_domain.items():
        domains.add_row(shown(name), str(d.n), f"{d.accuracy_a:.3f}", f"{d.accuracy_b:.3f}",
                        f"{d.delta:+.3f}")
    _stdout.print(domains)
    changed = Table(title=f"Changed cases ({len(c.changed)})", title_justify="left")
    for col in ("case", "label", "A", "B", "effect"):
        changed.add_column(col)
    for ch in c.changed:
        changed.add_row(shown(ch.case_id), ch.label.value if ch.label else "-", ch.decision_a.value,
                        ch.decision_b.value, ch.effect)
    _stdout.print(changed)


POOL_DATASET = "dataset"


def pool_dataset(pool: Path, out: Path, tasks: list[Path]) -> Dataset:
    """A dataset as given, or Harbor trial folders imported (unlabeled allowed) into OUT/dataset.

    Importing again on a rerun is deterministic (same case ids), so resume keeps working and
    trials added to the pool since are picked up.
    """
    if (pool / CASES_DIR).is_dir():
        require_complete(Dataset(pool))
        return Dataset(pool)
    from judge_runner.ingest.importer import ImportOptions, OutputDirError, import_trials
    from judge_runner.ingest.inputs import InputError, check_inputs
    from judge_runner.ingest.report import TrialStatus

    try:  # a pool of trials needs --tasks: said once, before anything is imported
        check_inputs([pool], tasks)
    except InputError as exc:
        raise fail(str(exc)) from None
    target = out / POOL_DATASET
    try:
        report = import_trials([pool], target,
                               ImportOptions(task_dirs=tasks, require_label=False))
    except (OutputDirError, ValueError, OSError) as exc:
        raise fail(f"importing {pool}: {exc}") from exc
    for entry in report.trials:
        if entry.status is TrialStatus.FAILED:  # reported, not fatal: the rest is judged
            _stderr.print(f"[yellow]not imported[/] {shown(entry.trial_path)}: "
                          f"{shown(entry.reason)}",
                          highlight=False)
    imported = report.count(TrialStatus.IMPORTED)
    if imported == 0:
        raise fail(f"no trial could be imported from {pool}")
    _stderr.print(f"imported {imported} trial(s) from {pool} into {target}", highlight=False,
                  soft_wrap=True)
    return Dataset(target)


@with_judge_options
def verdicts_command(
    pool: Annotated[Path, typer.Argument(help="Harbor trial folders (any tree) or a dataset.")],
    judge: JudgeName,
    out: Annotated[Path, typer.Option("--out", help="Output dir: dataset/ and the run.")],
    tasks: Annotated[list[Path] | None, typer.Option(
        "--tasks", metavar="DIR",
        help="Folder of task folders (DIR/<task>/instruction.md); repeatable.")]
    = None,
    *,
    options: JudgeOptions,
    concurrency: ConcurrencyOpt = 4,
    retry_errors: RetryOpt = False,
    progress: ProgressOpt = True,
) -> None:
    """Judge a new pool of trajectories (no labels needed); reruns resume like `eval`."""
    if not pool.exists():
        raise fail(f"pool {pool} does not exist")
    ds = pool_dataset(pool, out, list(tasks or []))
    the_judge = build_or_exit(judge, options)
    result = execute(the_judge, ds, ds.case_ids(), out, concurrency, retry_errors, progress)
    _stdout.print(metrics_table(result.summary))
    _stdout.print(f"verdicts: {out / VERDICTS_FILE}\nreport: {out / HTML_FILE}",
                  highlight=False, soft_wrap=True)


class SelectBy(StrEnum):
    DECISION = "decision"
    SCORE = "score"


def select_command(
    runs: Annotated[list[Path], typer.Argument(help="Run directories over the same pool.")],
    n_max: Annotated[int, typer.Option("--n-max", min=1)] = 10,
    repeats: Annotated[int, typer.Option("--repeats", min=1)] = 8,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out: Annotated[Path, typer.Option("--out", help="Where select.{json,html,md} go.")]
    = Path("select"),
    by: Annotated[SelectBy, typer.Option(
        "--by", help="decision: pick uniformly among predicted pass; score: pick the highest "
                     "verdict score (e.g. a checklist run's credit) where a run has scores.")]
    = SelectBy.DECISION,
) -> None:
    """Best-of-n rollout selection: Success@n per run, with oracle and random references."""
    try:
        named = {str(r): load_records(r) for r in runs}
        ranked = scored_runs(named) if by is SelectBy.SCORE else frozenset()
        result = select(named, n_max=n_max, repeats=repeats, seed=seed, by_score=ranked)
    except (FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from exc
    out.mkdir(parents=True, exist_ok=True)
    (out / "select.json").write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (out / "select.html").write_text(render_selection_html(result), encoding="utf-8")
    (out / "select.md").write_text(render_selection_markdown(result), encoding="utf-8")
    _stdout.print(selection_table(result))
    _stdout.print(f"report: {out / 'select.html'}", highlight=False, soft_wrap=True)


def calibrate_command(
    dev_run: Annotated[Path, typer.Argument(help="A finished run over labelled dev cases.")],
    agreement: Annotated[float, typer.Option(
        "--agreement",
        help="Agreement with the verifier to guarantee on decided cases (1 − α).")] = 0.8,
    delta: Annotated[float, typer.Option(
        "--delta", help="Chance the guarantee may fail (δ).")] = 0.1,
    out: Annotated[Path, typer.Option("--out", help="Where the calibration goes.")]
    = Path("calibration.json"),
    skill: Annotated[Path | None, typer.Option(
        "--skill", help="Rules runs: the JudgeSkill the run was judged with (default the "
                        "bundled one).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Rules runs: seed of the task split.")]
    = 0,
) -> None:
    """Choose the confidence at which a judge agrees with the verifier, with a guarantee.

    The threshold comes from fixed-sequence exact binomial tests; for the rules judge,
    calibrate also fits its combination (check weights, scale, offset) on half of the dev tasks
    and chooses the threshold on the other half."""
    from judge_runner.calibration import describe, save
    from judge_runner.judges import RulesError, default_skill_dir, known_checks, load_rules
    from judge_runner.runs.calibrate import CalibrateError, calibrate_run
    from judge_runner.runs.records import load_summary

    for name, value in (("--agreement", agreement), ("--delta", delta)):
        if not 0 < value < 1:
            raise typer.BadParameter(f"must lie strictly between 0 and 1, got {value:g}",
                                     param_hint=name)
    try:
        rules = digest = None
        if load_summary(dev_run).judge == "rules":
            skill_dir = skill or default_skill_dir()
            rules = load_rules(skill_dir, known_checks())
            digest = hashlib.sha256((skill_dir / "checks.toml").read_bytes()).hexdigest()
        calibration = calibrate_run(dev_run, alpha=round(1 - agreement, 12), delta=delta,
                                    rules=rules, rules_sha256=digest, seed=seed)
    except (FileNotFoundError, CalibrateError, RulesError) as exc:
        raise fail(str(exc)) from exc
    save(calibration, out)
    if calibration.threshold is None:
        _stdout.print(f"no threshold passes: on {calibration.n} labelled dev cases no "
                      f"confidence reaches {agreement:.0%} agreement at δ = {delta:g}; the "
                      "judge will abstain on every case (coverage 0)", highlight=False)
    else:
        _stdout.print(f"threshold {calibration.threshold:g}: dev coverage "
                      f"{calibration.coverage:.1%}, agreement {calibration.dev_agreement:.1%} "
                      f"on n = {calibration.n}", highlight=False)
    fit = calibration.rules_fit
    if fit is not None:
        _stdout.print(f"rules combination fitted on {fit.fit_cases} cases of "
                      f"{len(fit.fit_tasks)} tasks, the threshold chosen on the other "
                      f"{len(calibration.threshold_tasks)}: scale {fit.scale:g}, offset "
                      f"{fit.offset:g}, {len(fit.weights) + len(fit.support_weights)} check "
                      "weights", highlight=False, soft_wrap=True)
    _stdout.print(calibration.guarantee(), highlight=False, soft_wrap=True)
    if calibration.quality is not None:
        _stdout.print(f"confidence: {describe(calibration.quality)}", highlight=False,
                      soft_wrap=True)
    if calibration.stated_quality is not None:
        _stdout.print("first annotator's stated confidence: "
                      f"{describe(calibration.stated_quality)} (lower is better on all three)",
                      highlight=False, soft_wrap=True)
    _stdout.print(f"calibration: {out}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate_command)
    app.command("eval")(eval_command)
    app.command("compare")(compare_command)
    app.command("verdicts")(verdicts_command)
    app.command("select")(select_command)

