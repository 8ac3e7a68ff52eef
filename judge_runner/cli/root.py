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
    """Print the JSON Schemas of the case package files and of the plain run format.

    The case package: case.json, trajectory.json, labels; the plain run format: plain/run.json,
    plain/steps.jsonl, plain/label.json."""
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
    from judge_runner.cli.help import readable_help

    for stage in (ingest, sandbox, skills, judges, splits, runs, experiment, view, evolve,
                  harbor, checklist):
        stage.register(app)
    readable_help(app)


_register_stages()


def main() -> None:
    app()

