"""The `judge-runner` command line. Each pipeline stage registers its own commands."""

from __future__ import annotations

import importlib
import json
from typing import Annotated

import typer

from judge_runner import log

app = typer.Typer(
    name="judge-runner",
    help="Containerized agent-as-a-judge runner: import agent runs as cases, judge them, evaluate.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

# Modules exposing `register(app: typer.Typer) -> None`, in help order.
_STAGE_COMMANDS = (
    "judge_runner.ingest.commands",
    "judge_runner.sandbox.commands",
    "judge_runner.skills.commands",
    "judge_runner.judges.commands",
    "judge_runner.splits.commands",
    "judge_runner.runs.commands",
    "judge_runner.evolve.commands",
    "judge_runner.harbor.commands",
    "judge_runner.checklist.commands",
)


@app.callback()
def _root(
    log_json: Annotated[bool, typer.Option("--log-json", help="Log JSON lines to stderr.")] = False,
    log_level: Annotated[str, typer.Option("--log-level")] = "info",
) -> None:
    log.configure(json_output=log_json, level=log_level)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the case package files (case.json, trajectory.json, labels)."""
    from judge_runner.cases import CaseMeta, LabelRecord, Trajectory
    from judge_runner.judges import Inspection, Verdict

    schemas = {
        "case.json": CaseMeta.model_json_schema(),
        "trajectory.json": Trajectory.model_json_schema(),
        "labels.jsonl": LabelRecord.model_json_schema(),
        "inspection_log.jsonl": Inspection.model_json_schema(),
        "verdict.json": Verdict.model_json_schema(),
    }
    typer.echo(json.dumps(schemas, indent=2, sort_keys=True))


def _register_stages() -> None:
    for name in _STAGE_COMMANDS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # stage not present in this build
                continue
            raise
        module.register(app)


_register_stages()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
