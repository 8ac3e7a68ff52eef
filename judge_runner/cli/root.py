"""The `judge-runner` application: the root options, `schema`, and every stage's commands."""

from __future__ import annotations

import json
from typing import Annotated

import typer

app = typer.Typer(
    name="judge-runner",
    help="Containerized agent-as-a-judge runner: import agent runs as cases, judge them, evaluate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    log_json: Annotated[bool, typer.Option("--log-json", help="Log JSON lines to stderr.")] = False,
    log_level: Annotated[str, typer.Option("--log-level")] = "info",
) -> None:
    from judge_runner import log

    log.configure(json_output=log_json, level=log_level)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the case package files (case.json, trajectory.json, labels)
    and of the plain run format's files (plain/run.json, plain/steps.jsonl, plain/label.json)."""
    from judge_runner.cases import CaseMeta, LabelRecord, Trajectory
    from judge_runner.core import CASE_FILE, LABELS_FILE, TRAJECTORY_FILE, Inspection, Verdict
    from judge_runner.ingest.plain import schemas as plain_schemas

    schemas = {
        CASE_FILE: CaseMeta.model_json_schema(),
        TRAJECTORY_FILE: Trajectory.model_json_schema(),
        LABELS_FILE: LabelRecord.model_json_schema(),
        "inspection_log.jsonl": Inspection.model_json_schema(),
        "verdict.json": Verdict.model_json_schema(),
        **plain_schemas(),
    }
    typer.echo(json.dumps(schemas, indent=2, sort_keys=True))


def _register_stages() -> None:
    """Add every stage's commands, in help order. All stages ship with the package, so a stage
    that fails to import is an error, never skipped."""
    from judge_runner.cli import (
        checklist,
        evolve,
        experiment,
        harbor,
        ingest,
        judges,
        runs,
        sandbox,
        skills,
        splits,
        view,
    )

    for stage in (ingest, sandbox, skills, judges, splits, runs, experiment, view, evolve,
                  harbor, checklist):
        stage.register(app)
    _plain_help(app)


def _plain_help(group: typer.Typer) -> None:
    """Help and usage errors as plain text (click's own layout) for every command: it wraps
    option help instead of cutting it to "…" at 80 columns, and shows a flag as a flag, not
    with a `<bool>` value it would refuse."""
    group.rich_markup_mode = None
    for info in group.registered_groups:
        if info.typer_instance is not None:
            _plain_help(info.typer_instance)


_register_stages()


def main() -> None:
    app()

