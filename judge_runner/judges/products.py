"""Writing and reading a judge's per-case products (plan.md, inspection_log.jsonl, verdict.json)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from judge_runner.core import Inspection, Plan, Verdict
from judge_runner.files import write_whole
from judge_runner.jsonl import read_models, write_models

PLAN_FILE = "plan.md"
LOG_FILE = "inspection_log.jsonl"
VERDICT_FILE = "verdict.json"
TRANSCRIPT_FILE = "transcript.jsonl"
CANCELLED_FILE = "cancelled.txt"
NO_PLAN = "# Inspection plan\n\n(no plan was made)\n"


def write_products(
    out_dir: Path, plan: Plan | None, log: list[Inspection], verdict: Verdict
) -> None:
    """Write the three products; a judge that failed before planning gets a plan saying so."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / CANCELLED_FILE).unlink(missing_ok=True)
    plan_text = plan.to_markdown() if plan is not None else NO_PLAN
    write_whole(out_dir / PLAN_FILE, plan_text)
    write_models(out_dir / LOG_FILE, log)
    write_whole(out_dir / VERDICT_FILE, verdict.model_dump_json(indent=2) + "\n")


def read_log(out_dir: Path) -> list[Inspection]:
    return read_models(out_dir / LOG_FILE, Inspection, missing_ok=True)


def read_verdict(out_dir: Path) -> Verdict:
    return Verdict.model_validate_json((out_dir / VERDICT_FILE).read_text(encoding="utf-8"))


def write_cancelled(out_dir: Path) -> None:
    """Record that judging this case was cancelled (the run was stopped) before it finished:
    `cancelled.txt` says so and no verdict.json stays behind, so nothing reads the cut-short
    attempt as an error of the case. The partial plan and inspection log are kept to look at.
    The next run judges the case again and replaces all of it."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / VERDICT_FILE).unlink(missing_ok=True)
    write_whole(out_dir / CANCELLED_FILE, "cancelled: the run was stopped before this case was "
                "judged to the end; running the same command again judges it\n")


def shown_folder(out_dir: Path, verdict: Verdict) -> Path:
    """The folder whose transcript the case folder's plan and inspection log cite (and so the
    viewer's links): for a cascade, the folder of the last stage that ran; within it, for a
    vote over agent sessions, the shown session's; otherwise the case folder itself. Folder
    names that would leave the case folder are ignored."""
    details = verdict.details
    stages = details.get("stages")
    if isinstance(stages, list) and stages and isinstance(stages[-1], dict):
        out_dir = _below(out_dir, stages[-1].get("dir"))
    shown, sessions = details.get("shown"), details.get("sessions")
    if isinstance(shown, int) and isinstance(sessions, list) and 0 < shown <= len(sessions):
        entry = sessions[shown - 1]
        out_dir = _below(out_dir, entry.get("dir") if isinstance(entry, dict) else None)
    return out_dir


def _below(folder: Path, name: object) -> Path:
    if not isinstance(name, str) or not name:
        return folder
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts:
        return folder
    return folder / relative
