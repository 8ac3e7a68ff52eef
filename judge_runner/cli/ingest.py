"""CLI: `judge-runner import`, `judge-runner validate`, `judge-runner show`.

The importer, validator and renderer are imported inside the commands: every `judge-runner`
call, `--help` included, imports this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from judge_runner.cli.support import fail, io_failure, not_a_dataset

if TYPE_CHECKING:
    from judge_runner.ingest.importer import ImportOptions
    from judge_runner.ingest.report import ImportReport

# The defaults of cases.validate.ValidationLimits, written out so that listing the options does
# not import the validator; tests/ingest/test_commands.py checks that they agree.
MAX_STEPS = 1500
MAX_TRAJECTORY_TOKENS = 150_000
MAX_FIELD_CHARS = 20_000
FORMATS = ("harbor", "plain", "inspect")
TASK_NOT_FOUND = "task folder "  # how ingest.tasks.find_task's not-found reason begins


def import_command(
    trials: Annotated[list[Path], typer.Argument(help="Trial folders, job folders or any tree "
                                                      "holding them (searched recursively); "
                                                      "with --format plain run folders, with "
                                                      "--format inspect eval log files.")],
    out: Annotated[Path, typer.Option("--out", help="Dataset folder to write.")],
    tasks: Annotated[list[Path] | None, typer.Option(
        "--tasks", metavar="DIR",
        help="Folder of task folders (DIR/<task>/instruction.md); repeatable.",
    )] = None,
    domains: Annotated[Path | None, typer.Option(
        help="Category → domain mapping (TOML); default: the map bundled with judge-runner.",
    )] = None,
    pass_threshold: Annotated[float, typer.Option(help="Reward at or above which the label is "
                                                       "pass.")] = 1.0,
    unlabeled: Annotated[bool, typer.Option("--unlabeled", help="Import trials without a "
                                            "verifier reward instead of failing them.")] = False,
    source_format: Annotated[str, typer.Option(
        "--format", help="What TRIALS are: harbor (trial folders), plain (run folders of the "
                         "documented plain format) or inspect (inspect_ai eval logs; needs the "
                         "'inspect' extra).")] = "harbor",
    scorer: Annotated[str | None, typer.Option(
        help="--format inspect: the scorer whose value labels a sample (default: the "
             "log's only or first scorer); pass when value >= --pass-threshold.")] = None,
    agent_skills: Annotated[str, typer.Option(
        help="Which skills the agent had: auto (the harness's list, else the job folder's "
             "with/without-skills name, else the skills used), task (the task's skills) or "
             "none.")] = "auto",
) -> None:
    """Import agent runs as case packages; write import_report.json. Exit 1 if any failed.

    The runs are Harbor trials (--format harbor, with --tasks), plain run folders (--format
    plain) or inspect_ai eval logs (--format inspect)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from judge_runner.ingest.importer import ImportOptions, OutputDirError, import_trials
    from judge_runner.ingest.inputs import InputError, check_format_inputs
    from judge_runner.ingest.report import REPORT_FILE, TrialStatus
    from judge_runner.ingest.skills_rule import AgentSkills

    if source_format not in FORMATS:
        raise fail(f"--format must be one of {', '.join(FORMATS)}, not {source_format!r}")
    if scorer is not None and source_format != "inspect":
        raise fail("--scorer applies only to --format inspect")
    if source_format != "harbor" and (tasks or agent_skills != "auto"):
        raise fail("--tasks and --agent-skills apply only to --format harbor (a plain run "
                   "carries its instruction and skills, an inspect log its samples)")
    try:
        skills_option = AgentSkills(agent_skills)
    except ValueError:
        raise fail(f"--agent-skills must be one of {', '.join(a.value for a in AgentSkills)}, "
                   f"not {agent_skills!r}") from None
    try:  # a mistyped path is one line before anything is written
        check_format_inputs(source_format, trials, list(tasks or []))
    except InputError as exc:
        raise fail(str(exc)) from None
    options = ImportOptions(task_dirs=list(tasks or []), domains_file=domains,
                            pass_threshold=pass_threshold, require_label=not unlabeled,
                            agent_skills=skills_option)
    console = Console(stderr=True)
    with Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        task_id = bar.add_task("import", total=None)
        try:
            if source_format == "harbor":
                report = import_trials(trials, out, options,
                                       progress=lambda done, total: bar.update(
                                           task_id, completed=done, total=total))
            else:
                report = _import_other(source_format, trials, out, options, scorer)
        except OSError as exc:
            raise io_failure(exc, f"import into {out}", _partial_note(out)) from None
        except (OutputDirError, ValueError) as exc:
            raise fail(f"import failed: {exc}") from None
    for entry in report.trials:
        if entry.status is not TrialStatus.IMPORTED:
            console.print(f"[yellow]{entry.status.value}[/yellow] {entry.trial_path}: "
                          f"{entry.reason}", highlight=False, soft_wrap=True)
    for category in report.unmapped_categories:
        where = domains if domains is not None else "a copy of the bundled map, passed as --domains"
        console.print(f"[yellow]unmapped category[/yellow] {category!r} (add it to {where})",
                      highlight=False, soft_wrap=True)
    failed = report.count(TrialStatus.FAILED)
    console.print(f"imported {report.count(TrialStatus.IMPORTED)}, skipped "
                  f"{report.count(TrialStatus.SKIPPED)}, failed {failed} → {out / REPORT_FILE}",
                  highlight=False, soft_wrap=True)
    no_task = sum(1 for t in report.trials if t.status is TrialStatus.FAILED
                  and (t.reason or "").startswith(TASK_NOT_FOUND))
    if no_task:
        console.print(f"{no_task} trial(s) failed for want of their task folder: add the folder "
                      "holding it with another --tasks DIR", highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(1)


def _import_other(source_format: str, paths: list[Path], out: Path, options: ImportOptions,
                  scorer: str | None) -> ImportReport:
    """Import plain run folders or Inspect logs (ValueError for a missing optional extra)."""
    from judge_runner.ingest.external import import_runs

    if source_format == "plain":
        from judge_runner.ingest.plain import find_runs

        return import_runs(find_runs(paths, options.pass_threshold), out, options)
    from judge_runner.ingest.inspect_log import find_samples

    return import_runs(find_samples(paths, scorer, options.pass_threshold), out, options)


def _partial_note(out: Path) -> str:
    from judge_runner.core import INCOMPLETE_FILE

    if not (out / INCOMPLETE_FILE).exists():
        return "fix the cause and run the same import again"
    return (f"{out} is left marked incomplete ({INCOMPLETE_FILE}) and is refused by validate, "
            "eval and bench: free space (or fix the cause) and run the same import again")


def validate_command(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder (holding cases/).")],
    max_steps: Annotated[int, typer.Option(help="Steps per trajectory.")] = MAX_STEPS,
    max_tokens: Annotated[int, typer.Option(help="Estimated tokens per trajectory.json.")] =
        MAX_TRAJECTORY_TOKENS,
    max_field_chars: Annotated[int, typer.Option(help="Characters in one step field.")] =
        MAX_FIELD_CHARS,
) -> None:
    """Check schema, limits, consistency and label isolation. Exit 1 when anything is wrong."""
    from rich.console import Console

    from judge_runner.cases import Dataset
    from judge_runner.cases.validate import ValidationLimits, validate_dataset
    from judge_runner.core import CASES_DIR

    limits = ValidationLimits(max_steps=max_steps, max_trajectory_tokens=max_tokens,
                              max_field_chars=max_field_chars)
    console = Console()
    if not (dataset / CASES_DIR).is_dir():  # worded as eval and bench word it
        raise fail(not_a_dataset(dataset, Dataset(dataset)))
    try:
        issues = validate_dataset(dataset, limits)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from exc
    for issue in issues:
        console.print(f"[red]invalid[/red] {issue}", markup=True, highlight=False)
    cases_dir = dataset / CASES_DIR
    n_cases = len(list(cases_dir.iterdir())) if cases_dir.is_dir() else 0
    if issues:
        console.print(f"{len(issues)} problem(s) in {n_cases} case(s)")
        raise typer.Exit(1)
    console.print(f"ok: {n_cases} case(s) valid")


def show_command(
    case: Annotated[Path, typer.Argument(help="Case folder (<dataset>/cases/<id>).")],
    width: Annotated[int, typer.Option(help="Characters shown per step cell.")] = 160,
) -> None:
    """Render a case: instruction, skills, artifacts and the step table."""
    from rich.console import Console

    from judge_runner.ingest.show import render_case

    try:
        render_case(case, Console(), width)
    except (FileNotFoundError, ValueError) as exc:
        raise fail(f"cannot show {case}: {exc}") from exc


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
    app.command("validate")(validate_command)
    app.command("show")(show_command)
