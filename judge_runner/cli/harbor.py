"""CLI: `judge-runner harbor export | collect`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from judge_runner.cases.dataset import Dataset
from judge_runner.cli.case_ids import resolve_split
from judge_runner.cli.support import fail
from judge_runner.harbor.collect import CollectError, collect_job
from judge_runner.harbor.export import (
    ExportError,
    ExportOptions,
    NetworkIsolation,
    TaskBuild,
    export_tasks,
)
from judge_runner.runs.report import HTML_FILE, metrics_table
from judge_runner.sandbox.engine import default_image
from judge_runner.skills import SkillError, load_skill

_stdout = Console()
_stderr = Console(stderr=True)

harbor_app = typer.Typer(
    help="Run judge cases as Harbor trials: export tasks, collect Harbor jobs into runs.",
    no_args_is_help=True,
)


@harbor_app.command("export")
def export_command(
    dataset: Annotated[Path, typer.Argument(help="Dataset directory (cases/, labels.jsonl).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the tasks into.")],
    split: Annotated[str | None, typer.Option(
        "--split", help="eval | dev | gate (from the bench dir) or a file of case ids; "
        "default: every case.")] = None,
    bench: Annotated[Path | None, typer.Option(
        "--bench", help="Bench dir holding the split files (default DATASET/bench).")] = None,
    skill: Annotated[Path | None, typer.Option(
        "--skill", help="JudgeSkill directory installed in every task (default: none).")] = None,
    image: Annotated[str | None, typer.Option(
        "--image", help="Judge image the tasks build FROM (default $JUDGE_RUNNER_SANDBOX_IMAGE "
        "or judge-runner-judge:latest, as for the docker sandbox).")] = None,
    prebuilt: Annotated[str | None, typer.Option(
        "--prebuilt", metavar="IMAGE", help="Run every task in this judge image as it is, with "
        "no image build per case: JudgeAgent uploads the case and the JudgeSkill when the "
        "trial starts (JudgeAgent only; harnesses that cannot upload, such as Harbor's "
        "claude-code agent, need the default build tasks).")] = None,
    network: Annotated[NetworkIsolation, typer.Option(
        "--network", help="docker: compose network_mode none (plain Docker engines); "
        "policy: Harbor's no-network policy (modal, daytona, ...); open: no restriction "
        "(claude-code, whose model calls leave from the container).")] = NetworkIsolation.DOCKER,
    agent_timeout: Annotated[float, typer.Option(
        "--agent-timeout", min=1, help="Harbor agent timeout per task, seconds.")] = 1800.0,
) -> None:
    """Write one Harbor task per case: the case and JudgeSkill in the image (or, with --prebuilt,
    uploaded at setup), the label in tests/."""
    if prebuilt is not None and image is not None:
        raise fail("--image and --prebuilt both name the judge image: give one")
    if prebuilt is not None and not prebuilt.strip():
        raise fail("--prebuilt needs an image name")
    data = Dataset(dataset)
    if not data.cases_dir.is_dir():
        raise fail(f"{dataset} is not a dataset (no {data.cases_dir})")
    _, case_ids = resolve_split(data, split, bench)
    try:
        judge_skill = load_skill(skill) if skill is not None else None
    except SkillError as exc:
        raise fail(str(exc)) from exc
    options = ExportOptions(image=prebuilt or image or default_image(),
                            build=TaskBuild.BUILD if prebuilt is None else TaskBuild.PREBUILT,
                            network=network, agent_timeout_s=agent_timeout)
    try:
        result = export_tasks(data, case_ids, judge_skill, out, options)
    except ExportError as exc:
        raise fail(str(exc)) from exc
    for case_id, reason in sorted(result.errors.items()):
        _stderr.print(f"[yellow]skipped[/] {case_id}: {reason}", highlight=False)
    _stdout.print(f"exported {len(result.tasks)} task(s) to {out}"
                  + (f", skipped {len(result.errors)}" if result.errors else ""))
    _stdout.print(f"run: harbor run -p {out} -a judge_runner.harbor.agent:JudgeAgent "
                  "-m MODEL --skip-model-parsing-and-provider-mapping -e docker",
                  highlight=False)
    if not result.tasks:
        raise typer.Exit(1)


@harbor_app.command("collect")
def collect_command(
    job_dir: Annotated[Path, typer.Argument(help="A Harbor job directory (jobs/<name>).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory to write.")],
    tasks: Annotated[Path | None, typer.Option(
        "--tasks", help="Folder of the exported tasks, when the paths the job recorded do not "
        "reach them (job run from another directory or machine).")] = None,
    reports: Annotated[bool, typer.Option("--reports/--no-reports")] = True,
) -> None:
    """Turn a Harbor job of exported judge tasks into a judge-runner run directory."""
    try:
        result = collect_job(job_dir, out, write_reports=reports, tasks_dir=tasks)
    except CollectError as exc:
        raise fail(str(exc)) from exc
    for trial, reason in sorted(result.skipped.items()):
        _stderr.print(f"[yellow]skipped[/] {trial}: {reason}", highlight=False)
    _stdout.print(metrics_table(result.summary))
    if reports:
        _stdout.print(f"report: {out / HTML_FILE}")


def register(app: typer.Typer) -> None:
    app.add_typer(harbor_app, name="harbor")
