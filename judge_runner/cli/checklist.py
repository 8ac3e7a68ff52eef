"""`judge-runner checklist synth|validate|score|analyze`.

Every model call is recorded, like a model judge's: `synth` and `score` write
`<out>/transcript.jsonl`, `analyze --perturb` writes `<score dir>/perturbation/transcript.jsonl`.
`--replay DIR` answers the calls from the transcripts under DIR instead of a server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cases.dataset import Dataset
from judge_runner.checklist.models import (
    CaseJudgments,
    Checklist,
    ChecklistLoadError,
    read_checklist,
)
from judge_runner.checklist.pipeline import (
    JUDGMENTS_FILE,
    perturbation_check,
    read_run,
    score_dataset,
    synth_tasks,
)
from judge_runner.checklist.report import REPORT_FILE, analyze_dir
from judge_runner.checklist.score import ChecklistScorer
from judge_runner.checklist.synth import DEFAULT_RULES
from judge_runner.checklist.tasks import TaskSourceError, load_task
from judge_runner.checklist.validate import validate
from judge_runner.cli.support import fail
from judge_runner.jsonl import read_models
from judge_runner.models.base import ModelClient, ModelError
from judge_runner.models.recording import TRANSCRIPT, RecordingClient

app = typer.Typer(help="Checklist partial credit: synthesize, validate, score, analyze.",
                  no_args_is_help=True)

BaseUrl = Annotated[str | None, typer.Option(
    "--base-url", help="Messages API server (default $ANTHROPIC_BASE_URL or Anthropic).")]

Replay = Annotated[Path | None, typer.Option(
    "--replay", help="Answer model calls from the transcripts under this folder (an earlier "
                     "output folder); no server, no key.")]
PERTURB_TRANSCRIPT = Path("perturbation") / TRANSCRIPT


def _client(base_url: str | None, replay: Path | None, transcript: Path) -> ModelClient:
    """A client recording every call to `transcript` (replacing an earlier one there).

    Exits with a clear error when no API key is available for a non-local server or `replay`
    holds no transcript.
    """
    from judge_runner.models.factory import make_client  # loads the SDK: only when needed

    try:
        return RecordingClient(make_client(base_url=base_url, replay=replay), transcript)
    except ModelError as exc:
        raise fail(str(exc)) from exc


@app.command()
def synth(
    task_dirs: Annotated[list[Path], typer.Argument(help="Harbor task folders.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for <task>.json checklists.")],
    model: Annotated[str, typer.Option("--model", help="Synthesizer model.")],
    rules: Annotated[Path, typer.Option("--rules", help="Human rules (markdown).")] = DEFAULT_RULES,
    base_url: BaseUrl = None,
    replay: Replay = None,
    max_rounds: Annotated[int, typer.Option(help="Submissions per task incl. repairs.")] = 3,
    workers: Annotated[int, typer.Option(help="Tasks in parallel.")] = 2,
) -> None:
    """Write one frozen, validated checklist per task from its instruction and verifier only."""
    client = _client(base_url, replay, out / TRANSCRIPT)
    results = synth_tasks(task_dirs, rules.read_text(encoding="utf-8"), client, model,
                          out, max_rounds=max_rounds, workers=workers)
    for r in results:
        if r.error:
            typer.echo(f"FAILED {r.task or r.task_dir}: {r.error}", err=True)
        else:
            typer.echo(f"ok {r.task}: {r.checklist} ({r.rounds} round(s), {r.content_hash})")
    if any(r.error for r in results):
        raise typer.Exit(1)


@app.command("validate")
def validate_cmd(
    checklists: Annotated[list[Path], typer.Argument(help="Checklist files or folders.")],
    tasks: Annotated[Path, typer.Option("--tasks", help="Folder holding <task>/ folders.")],
    refreeze: Annotated[bool, typer.Option(
        help="Accept edited checklists: re-hash those that pass every gate.")] = False,
) -> None:
    """Run the validation gates; exit 1 when any checklist fails one."""
    files = sorted({f for p in checklists
                    for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])
                    if not f.name.endswith(".errors.json")})
    bad = 0
    for file in files:
        try:
            checklist = _load(file, refreeze)
            failures = validate(checklist, load_task(tasks / checklist.task))
        except (ChecklistLoadError, TaskSourceError) as exc:
            typer.echo(f"FAILED {file}: {exc}", err=True)
            bad += 1
            continue
        if failures:
            bad += 1
            for f in failures:
                typer.echo(f"FAILED {file}: {f}", err=True)
            continue
        if refreeze and not checklist.is_frozen:
            file.write_text(checklist.freeze().model_dump_json(indent=2) + "\n", encoding="utf-8")
        typer.echo(f"ok {file} ({len(checklist.items)} items)")
    if bad or not files:
        raise typer.Exit(1)


def _load(file: Path, refreeze: bool) -> Checklist:
    if not refreeze:
        return read_checklist(file)
    try:
        return Checklist.model_validate_json(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ChecklistLoadError(f"{file}: not a readable checklist: {exc}") from exc


@app.command()
def score(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder (cases/, labels.jsonl).")],
    checklists: Annotated[Path, typer.Option("--checklists", help="Folder of <task>.json.")],
    out: Annotated[Path, typer.Option("--out", help="Score folder to write.")],
    judge_model: Annotated[str | None, typer.Option(
        "--judge-model", help="Judge model; omit with --offline.")] = None,
    offline: Annotated[bool, typer.Option(
        help="Decide only mechanically checkable items, by code; no model calls.")] = False,
    base_url: BaseUrl = None,
    replay: Replay = None,
    workers: Annotated[int, typer.Option(help="Cases in parallel.")] = 4,
) -> None:
    """Label each checklist item Yes/No/Abstain from the execution log, then apply the outcome."""
    if not offline and judge_model is None:
        raise typer.BadParameter("give --judge-model, or --offline for mechanical items only")
    scorer = ChecklistScorer() if offline else \
        ChecklistScorer(_client(base_url, replay, out / TRANSCRIPT), judge_model)
    judgments, scores = score_dataset(Dataset(dataset), checklists, scorer, out, workers=workers)
    errors = [j for j in judgments if j.error]
    for j in errors:
        typer.echo(f"ERROR {j.case_id}: {j.error}", err=True)
    typer.echo(f"{len(scores)} scored, {len(errors)} errors -> {out}")


@app.command()
def analyze(
    score_dir: Annotated[Path, typer.Argument(help="Folder written by `checklist score`.")],
    human_prefs: Annotated[Path | None, typer.Option(
        "--human-prefs", help="JSONL of {a, b, preferred: a|b|tie} case pairs.")] = None,
    perturb: Annotated[bool, typer.Option(
        help="Run the evidence-perturbation check first (model items need --judge-model "
             "unless the score run was offline).")] = False,
    judge_model: Annotated[str | None, typer.Option("--judge-model")] = None,
    base_url: BaseUrl = None,
    perturb_limit: Annotated[int, typer.Option(help="Most judgments to perturb.")] = 200,
) -> None:
    """AUC vs PASS/FAIL, skill pairs, perturbation, human agreement; writes analysis.json and
    checklist_report.html into SCORE_DIR."""
    if perturb:
        run = read_run(score_dir)
        model = judge_model or run.judge_model
        scorer = ChecklistScorer(_client(base_url, None, score_dir / PERTURB_TRANSCRIPT), model) \
            if model else ChecklistScorer()
        judgments = read_models(score_dir / JUDGMENTS_FILE, CaseJudgments, missing_ok=True)
        perturbation_check(Dataset(Path(run.dataset)), Path(run.checklists), judgments, scorer,
                           score_dir, limit=perturb_limit)
    analysis = analyze_dir(score_dir, human_prefs)
    summary = {name: r.auc for name, r in analysis.auc.items()}
    typer.echo(json.dumps({"auc": summary, "n_scored": analysis.n_scored,
                           "n_errors": analysis.n_errors}, sort_keys=True))
    typer.echo(f"report: {score_dir / REPORT_FILE}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="checklist")
