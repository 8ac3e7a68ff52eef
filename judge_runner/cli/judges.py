"""`judge-runner judge CASE`: judge one case package and print its plan, log and verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cases import CasePackage
from judge_runner.cli.judge_options import JudgeName, build_or_exit, with_judge_options
from judge_runner.cli.support import echo
from judge_runner.core import CASE_FILE, Decision, Inspection, Verdict
from judge_runner.judges import JudgeOptions
from judge_runner.judges.products import PLAN_FILE, read_log


@with_judge_options
def judge_command(
    case: Annotated[Path, typer.Argument(help="Case package directory (DATASET/cases/<id>).")],
    judge: JudgeName = "agent",
    *,
    options: JudgeOptions,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Output folder (default runs/single/<judge>/<case id>).")] = None,
) -> None:
    """Judge one case and print its plan, inspections and verdict.

    Writes plan.md, inspection_log.jsonl, verdict.json (and transcript.jsonl for model judges)
    into --out, and exits 1 when the verdict is an error (a package holding label or verifier
    files, or an artifact outside artifacts/, is not judged)."""
    package = CasePackage(case)
    if not (case / CASE_FILE).is_file():
        raise typer.BadParameter(f"{case}: no case.json; give a case package directory",
                                 param_hint="CASE")
    built = build_or_exit(judge, options)
    out_dir = out or Path("runs") / "single" / built.name / case.name
    from judge_runner.runs.runner import judge_one  # the CLI layer; judges do not import runs

    verdict = judge_one(built, package, out_dir)
    echo(_report(out_dir, verdict))
    if verdict.decision == Decision.ERROR:
        raise typer.Exit(1)


def _report(out_dir: Path, verdict: Verdict) -> str:
    plan = (out_dir / PLAN_FILE).read_text(encoding="utf-8") if (out_dir / PLAN_FILE).is_file() \
        else ""
    lines = [plan.rstrip(), "", "# Inspection log", ""]
    log = read_log(out_dir)
    lines += [_inspection_line(i) for i in log] or ["(no inspections)"]
    lines += ["", "# Verdict", "", f"decision: {verdict.decision.value}"
              + (" (UNSUPPORTED: citations did not resolve)" if verdict.unsupported else "")]
    if verdict.error:
        lines.append(f"error: {verdict.error}")
    if verdict.rationale:
        lines.append(f"rationale: {verdict.rationale}")
    if verdict.citations:
        lines.append(f"citations: {', '.join(verdict.citations)}")
    usage = verdict.usage
    lines.append(
        f"usage: {usage.calls} calls, {usage.input_tokens} input + "
        f"{usage.cache_creation_input_tokens} cache-write + {usage.cache_read_input_tokens} "
        f"cache-read + {usage.output_tokens} output tokens, ${usage.cost_usd:.4f}, "
        f"{usage.retries} retries"
    )
    lines.append(f"products: {out_dir}")
    return "\n".join(lines)


def _inspection_line(inspection: Inspection) -> str:
    flag = " critical" if inspection.critical else ""
    evidence = "; ".join(
        f"{ref.ref} {'verified' if ref.verified else 'UNVERIFIED'}: {ref.quote!r}"
        for ref in inspection.evidence
    )
    return (f"- {inspection.id} [{inspection.plan_item}] {inspection.outcome.value}{flag}: "
            f"{inspection.finding}" + (f"\n  evidence: {evidence}" if evidence else ""))


def register(app: typer.Typer) -> None:
    app.command("judge")(judge_command)
