"""`judge-runner checklist synth|validate|analyze`.

Judging cases against the frozen checklists is `eval --judge checklist` (or `verdicts`), like
every judge; the scores are metrics of that run. `synth` records its model calls in
`<out>/transcript.jsonl` (`--replay DIR` answers them from the transcripts under DIR);
`analyze --perturb` records its own in `<run dir>/perturbation/transcript.jsonl`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from judge_runner.checklist.models import Checklist, ChecklistLoadError, read_checklist
from judge_runner.checklist.synth import DEFAULT_RULES
from judge_runner.checklist.tasks import TaskSourceError, load_task
from judge_runner.checklist.validate import validate
from judge_runner.cli.support import echo, fail
from judge_runner.models.base import ModelClient, ModelError

app = typer.Typer(help="Checklist partial credit: synthesize and validate the frozen "
                       "checklists, analyze a checklist run.", no_args_is_help=True)

BaseUrl = Annotated[str | None, typer.Option(
    "--base-url", help="Messages API server (default $ANTHROPIC_BASE_URL or Anthropic).")]

Replay = Annotated[Path | None, typer.Option(
    "--replay", help="Answer model calls from the transcripts under this folder (an earlier "
                     "output folder); no server, no key.")]
PERTURBATION_DIR = "perturbation"


def _client(base_url: str | None, replay: Path | None, folder: Path) -> ModelClient:
    """A client recording every call to `folder`/transcript.jsonl (replacing an earlier one),
    built as every model judge builds its own.

    Exits with a clear error when no API key is available for a non-local server or `replay`
    holds no transcript.
    """
    from judge_runner.judges import ModelJudgeSettings, client_factory  # loads the SDK

    try:
        return client_factory(ModelJudgeSettings(base_url=base_url, replay=replay))(folder)
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
    from judge_runner.checklist.pipeline import synth_tasks

    client = _client(base_url, replay, out)
    results = synth_tasks(task_dirs, rules.read_text(encoding="utf-8"), client, model,
                          out, max_rounds=max_rounds, workers=workers)
    for r in results:
        if r.error:
            echo(f"FAILED {r.task or r.task_dir}: {r.error}", err=True)
        else:
            echo(f"ok {r.task}: {r.checklist} ({r.rounds} round(s), {r.content_hash})")
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
            echo(f"FAILED {file}: {exc}", err=True)
            bad += 1
            continue
        if failures:
            bad += 1
            for f in failures:
                echo(f"FAILED {file}: {f}", err=True)
            continue
        if refreeze and not checklist.is_frozen:
            file.write_text(checklist.freeze().model_dump_json(indent=2) + "\n", encoding="utf-8")
        echo(f"ok {file} ({len(checklist.items)} items)")
    if bad or not files:
        raise typer.Exit(1)


def _load(file: Path, refreeze: bool) -> Checklist:
    if not refreeze:
        return read_checklist(file)
    try:
        return Checklist.model_validate_json(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ChecklistLoadError(f"{file}: not a readable checklist: {exc}") from exc


@app.command(hidden=True, context_settings={"allow_extra_args": True,
                                            "ignore_unknown_options": True})
def score() -> None:
    """Replaced by `eval --judge checklist`; says so."""
    raise fail("`checklist score` is replaced by the checklist judge: judge-runner eval DATASET "
               "--judge checklist -o checklists=CHECKLISTS --model M (or --model offline), then "
               "judge-runner checklist analyze RUN_DIR (see docs/checklist.md)")


@app.command()
def analyze(
    run_dir: Annotated[Path, typer.Argument(help="Run directory of `eval --judge checklist`.")],
    human_prefs: Annotated[Path | None, typer.Option(
        "--human-prefs", help="JSONL of {a, b, preferred: a|b|tie} case pairs.")] = None,
    perturb: Annotated[bool, typer.Option(
        help="Run the evidence-perturbation check first (needs --checklists).")] = False,
    checklists: Annotated[Path | None, typer.Option(
        "--checklists", help="The frozen checklists the run was judged with (--perturb).")]
    = None,
    judge_model: Annotated[str | None, typer.Option(
        "--judge-model", help="Re-judge model items with this model (default: the run's).")]
    = None,
    base_url: BaseUrl = None,
    perturb_limit: Annotated[int, typer.Option(help="Most judgments to perturb.")] = 200,
) -> None:
    """Skill pairs, perturbation, human agreement beside the run's partial-credit metrics;
    writes analysis.json and checklist_report.html into RUN_DIR."""
    from judge_runner.cases.dataset import Dataset
    from judge_runner.checklist.judge import NAME, OFFLINE, load_checklists, recorded_judgments
    from judge_runner.checklist.metrics import case_scores, read_details
    from judge_runner.checklist.pipeline import PERTURBATION_FILE, PerturbRecord, perturbation_check
    from judge_runner.checklist.report import (
        REPORT_FILE,
        build_analysis,
        read_preferences,
        write_analysis,
    )
    from judge_runner.checklist.score import ChecklistScorer
    from judge_runner.core import Decision
    from judge_runner.jsonl import read_models
    from judge_runner.judges import read_log
    from judge_runner.runs import CASES_OUT, load_records, load_summary

    try:
        records, summary = load_records(run_dir), load_summary(run_dir)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from exc
    if summary.judge != NAME:
        raise fail(f"{run_dir} is a run of the {summary.judge} judge, not of the checklist judge")
    scores, unreadable = case_scores((r.case_id, r.verdict.details, r.label) for r in records)
    errors = {r.case_id: r.verdict.error or "error" for r in records
              if r.decision is Decision.ERROR}
    if perturb:
        if checklists is None:
            raise typer.BadParameter("--perturb re-judges items: give --checklists DIR")
        found, _ = load_checklists(checklists)
        model = judge_model or str(summary.config.get("model", OFFLINE))
        scorer = ChecklistScorer() if model == OFFLINE else \
            ChecklistScorer(_client(base_url, None, run_dir / PERTURBATION_DIR), model)
        judgments = []
        for r in records:
            details = read_details(r.verdict.details)
            if details is not None:
                log = read_log(run_dir / CASES_OUT / r.case_id)
                judgments.append(recorded_judgments(r.case_id, details, log))
        perturbed = perturbation_check(Dataset(Path(summary.dataset)), found, judgments, scorer,
                                       run_dir, limit=perturb_limit)
    else:
        perturbed = read_models(run_dir / PERTURBATION_FILE, PerturbRecord, missing_ok=True)
    try:
        prefs = read_preferences(human_prefs) if human_prefs is not None else None
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
    analysis = build_analysis(scores, errors, perturbed, prefs, unreadable)
    write_analysis(run_dir, analysis, scores)
    summary_auc = {name: r.auc for name, r in analysis.auc.items()}
    typer.echo(json.dumps({"auc": summary_auc, "n_scored": analysis.n_cases,
                           "n_errors": analysis.n_errors}, sort_keys=True))
    typer.echo(f"report: {run_dir / REPORT_FILE}")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="checklist")
