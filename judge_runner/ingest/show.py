"""Terminal rendering of one case package with rich.

Every string of the run goes through `terminal_safe` (escape sequences and other controls are
shown, not acted on) and is printed as plain text, never parsed as rich markup."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from judge_runner.cases import CasePackage, Step, StepKind
from judge_runner.core import CASE_FILE
from judge_runner.untrusted import terminal_safe

_KIND_STYLE = {StepKind.ASSISTANT_MESSAGE: "cyan", StepKind.TOOL_CALL: "white",
               StepKind.SKILL_USE: "magenta", StepKind.NOTICE: "dim"}


def render_case(case_dir: Path, console: Console, width: int = 160) -> None:
    """Print the case. Raises FileNotFoundError when case.json is missing, ValueError when a
    case file does not match the schema."""
    if not (case_dir / CASE_FILE).is_file():
        raise FileNotFoundError(f"no case.json in {case_dir}")
    case = CasePackage(case_dir)
    try:
        meta, traj = case.meta, case.trajectory
    except ValidationError as exc:
        raise ValueError(str(exc)) from exc
    domain = meta.domain.value if meta.domain else f"unmapped ({_markup(meta.category)})"
    console.print(Panel.fit(
        f"[bold]{_markup(meta.id)}[/bold]\ntask {_markup(meta.task)} · domain {domain} · agent "
        f"{_markup(meta.source.agent)} · model {_markup(meta.source.model)}\n"
        f"{meta.stats.n_steps} steps, {meta.stats.n_tool_calls} tool "
        f"calls, {meta.stats.n_error_steps} errors, {meta.stats.n_skill_uses} skill uses · "
        f"termination {traj.termination.status.value}"
        + (f" ({_markup(traj.termination.exception)})" if traj.termination.exception else ""),
        title="case"))
    console.print(Panel(Markdown(terminal_safe(case.instruction)), title="instruction"))
    skills = ", ".join(map(_markup, meta.skills)) if meta.skills else "(none: run without skills)"
    console.print(f"[bold]skills:[/bold] {skills}")
    arts = Table(title="artifacts", show_lines=False)
    for column in ("path", "provenance", "size", "steps", "note"):
        arts.add_column(column)
    for art in meta.artifacts:
        arts.add_row(_text(art.path), art.provenance.value, str(art.size or "—"),
                     ",".join(map(str, art.steps)), _text(art.note or ""))
    console.print(arts)
    steps = Table(title="trajectory")
    for column in ("#", "kind", "tool", "summary", "exit", "err"):
        steps.add_column(column, overflow="fold")
    for step in traj.steps:
        style = "red" if step.is_error else _KIND_STYLE[step.kind]
        steps.add_row(str(step.index), step.kind.value, _text(step.tool or step.skill or ""),
                      _text(_summary(step, width)),
                      "" if step.exit_code is None else str(step.exit_code),
                      "✗" if step.is_error else "", style=style)
    console.print(steps)
    if traj.final_message:
        console.print(Panel(_text(traj.final_message[: width * 8]), title="final message"))


def _text(value: str) -> Text:
    """A run's string as plain text (no markup), controls shown escaped."""
    return Text(terminal_safe(value))


def _markup(value: object) -> str:
    """A run's string inside our markup: controls shown escaped, markup escaped."""
    return escape(terminal_safe(str(value)))


def _summary(step: Step, width: int) -> str:
    if step.kind is StepKind.TOOL_CALL:
        args = step.arguments or {}
        main = args.get("command") or args.get("file_path") or args.get("pattern") or str(args)
        text = f"{main}\n→ {step.output or '(no result)'}"
    elif step.kind is StepKind.SKILL_USE:
        text = f"skill {step.skill}: {(step.text or '').strip()}"
    else:
        text = step.text or step.output or ""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
