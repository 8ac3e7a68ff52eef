"""Writing and reading a judge's per-case products (plan.md, inspection_log.jsonl, verdict.json)."""

from __future__ import annotations

from pathlib import Path

from judge_runner.core import Inspection, Plan, Verdict
from judge_runner.jsonl import read_models, write_models

PLAN_FILE = "plan.md"
LOG_FILE = "inspection_log.jsonl"
VERDICT_FILE = "verdict.json"
TRANSCRIPT_FILE = "transcript.jsonl"
NO_PLAN = "# Inspection plan\n\n(no plan was made)\n"


def write_products(
    out_dir: Path, plan: Plan | None, log: list[Inspection], verdict: Verdict
) -> None:
    """Write the three products; a judge that failed before planning gets a plan saying so."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plan_text = plan.to_markdown() if plan is not None else NO_PLAN
    (out_dir / PLAN_FILE).write_text(plan_text, encoding="utf-8")
    write_models(out_dir / LOG_FILE, log)
    (out_dir / VERDICT_FILE).write_text(verdict.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_log(out_dir: Path) -> list[Inspection]:
    return read_models(out_dir / LOG_FILE, Inspection, missing_ok=True)


def read_verdict(out_dir: Path) -> Verdict:
    return Verdict.model_validate_json((out_dir / VERDICT_FILE).read_text(encoding="utf-8"))
