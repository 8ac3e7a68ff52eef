"""Judging with the checklist judge through the CLI, and comparing a run with the figures the
earlier standalone pipeline wrote for the same inputs (`golden/<name>/`: `scores.jsonl`,
`perturbation.jsonl` and `analysis.json` of `checklist score` + `checklist analyze --perturb`,
scripted judge, one worker)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from judge_runner.checklist.metrics import case_scores
from judge_runner.checklist.models import Checklist, read_checklist
from judge_runner.cli import app
from judge_runner.runs import load_records, load_summary
from tests.checklist import scripted
from tests.fakeapi import FakeMessagesServer

GOLDEN = Path(__file__).parent / "golden"
# The analysis figures both versions compute (the counts around them were renamed).
FIGURES = ("auc", "perfect_agrees_with_outcome", "mean_coverage", "pairs", "perturbation",
           "human", "tasks", "errors")
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def task_dirs(tasks: Path) -> list[Path]:
    """The tasks of a folder that have verifier tests (what a checklist is written from)."""
    return sorted(p for p in tasks.iterdir() if (p / "tests").is_dir())


def synthesize(server: FakeMessagesServer, tasks: Path, out: Path) -> dict[str, Checklist]:
    """`checklist synth` of `tasks` into `out`, answered by the scripted synthesizer."""
    server.responder = scripted.synth_responder
    invoke("checklist", "synth", *map(str, task_dirs(tasks)), "--out", str(out),
           "--model", "m-syn", "--base-url", server.base_url)
    return {p.stem: read_checklist(p) for p in sorted(out.glob("*.json"))}


def eval_checklist(dataset: Path, checklists: Path, run_dir: Path, *judge_args: str,
                   env: dict[str, str] | None = None) -> Any:
    return invoke("eval", str(dataset), "--judge", "checklist", "-o", f"checklists={checklists}",
                  *judge_args, "--run-dir", str(run_dir), "--no-progress", env=env)


def scores_jsonl(run_dir: Path) -> str:
    """The per-case scores of a run, one JSON line each in case order, as `scores.jsonl` was."""
    records = load_records(run_dir)
    scores, unreadable = case_scores((r.case_id, r.verdict.details, r.label) for r in records)
    assert unreadable == 0
    return "".join(s.model_dump_json() + "\n" for s in scores)


def assert_reproduces(run_dir: Path, golden: str, perturbed: bool = True) -> None:
    """The run's scores, its metrics.json AUCs and its analysis equal the golden files."""
    want = GOLDEN / golden
    assert scores_jsonl(run_dir) == (want / "scores.jsonl").read_text()
    old = json.loads((want / "analysis.json").read_text())
    new = json.loads((run_dir / "analysis.json").read_text())
    assert {k: new[k] for k in FIGURES} == {k: old[k] for k in FIGURES}
    metrics = load_summary(run_dir).checklist
    assert metrics is not None
    assert metrics.model_dump(mode="json")["auc"] == old["auc"]
    if perturbed:
        assert (run_dir / "perturbation.jsonl").read_text() == \
            (want / "perturbation.jsonl").read_text()
