"""`judge-runner judge CASE`: judge one case package and print its plan, log and verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from judge_runner.cases import CasePackage
from judge_runner.judges.base import Decision, Inspection, Verdict
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import PLAN_FILE, read_log
from judge_runner.judges.registry import JudgeOptions, UnknownJudgeError, build_judge
from judge_runner.models.base import ModelError
from judge_runner.skills import SkillError

NO_SKILL = "none"


def judge_command(
    case: Annotated[Path, typer.Argument(help="Case package directory (…/cases/<id>).")],
    judge: Annotated[str, typer.Option("--judge", help="agent | direct | rubric | multi | rules "
                                       "| package.module:make_judge")] = "agent",
    skill: Annotated[str | None, typer.Option(
        "--skill", help="JudgeSkill directory, or 'none' (agent without JudgeSkill). "
        "Required for the agent judge.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    models: Annotated[str | None, typer.Option(
        "--models", help="Comma-separated models of a multi-judge panel.")] = None,
    base_url: Annotated[str | None, typer.Option(
        "--base-url", help="Messages API root (default $ANTHROPIC_BASE_URL or Anthropic).")] = None,
    sandbox: Annotated[str, typer.Option("--sandbox", help="docker | local | auto")] = "auto",
    out: Annotated[Path | None, typer.Option(
        "--out", help="Output folder (default runs/single/<judge>/<case id>).")] = None,
    replay: Annotated[Path | None, typer.Option(
        "--replay", help="Answer model calls from the transcripts of this run folder.")] = None,
    allow_abstain: Annotated[bool, typer.Option("--allow-abstain")] = False,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Judge knob KEY=VALUE (JSON value), e.g. -o max_turns=30.")] = None,
) -> None:
    """Judge one case; writes plan.md, inspection_log.jsonl, verdict.json (and transcript.jsonl
    for model judges) into --out, prints them, and exits 1 when the verdict is an error."""
    package = CasePackage(case)
    if not (case / "case.json").is_file():
        raise typer.BadParameter(f"{case}: no case.json; give a case package directory",
                                 param_hint="CASE")
    if judge == "agent" and skill is None:
        raise typer.BadParameter("the agent judge needs --skill DIR (or --skill none)",
                                 param_hint="--skill")
    options = JudgeOptions(
        skill=None if skill in (None, NO_SKILL) else Path(skill),
        model=model,
        models=[m.strip() for m in models.split(",") if m.strip()] if models else [],
        base_url=base_url, sandbox=sandbox, allow_abstain=allow_abstain, replay=replay,
        extra=_parse_options(option or []),
    )
    try:
        built = build_judge(judge, options)
    except (UnknownJudgeError, JudgeConfigError, SkillError, ModelError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--judge") from None
    out_dir = out or Path("runs") / "single" / built.name / case.name
    verdict = built.judge(package, out_dir)
    typer.echo(_report(out_dir, verdict))
    if verdict.decision == Decision.ERROR:
        raise typer.Exit(1)


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--option")
        try:
            parsed[key] = json.loads(value)
        except ValueError:
            parsed[key] = value  # a bare string such as a model name
    return parsed


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
