"""Command-line options every judging command shares, and building a judge from them.

`judge`, `eval` and `verdicts` take the same judge options; they are declared once here so that
a knob added to judges is added to every command at once. `evolve` has its own judge options
(`--judge`, `--judge-model`, ...) but builds its judges through the same `judge_options` and
`build_or_exit`.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer

from judge_runner.cli.support import fail
from judge_runner.judges import (
    JUDGES,
    NO_SKILL,
    Judge,
    JudgeOptions,
    SkillChoice,
    UnknownJudgeError,
    build_judge,
    check_options,
)
from judge_runner.models import ModelError
from judge_runner.sandbox import SandboxKind

JudgeName = Annotated[
    str,
    typer.Option(
        "--judge", "-j",
        help=f"{' | '.join(JUDGES)}, or package.module:factory."
    ),
]


def parse_skill(text: str) -> SkillChoice:
    """`none` (exactly) chooses no JudgeSkill; anything else is a directory, so `./none` is a
    directory named none, never the choice."""
    return NO_SKILL if text == NO_SKILL.value else Path(text)


def parse_sandbox(text: str) -> SandboxKind:
    """A sandbox kind the command line can open; BadParameter (exit 2) naming the choices."""
    choices = [k.value for k in SandboxKind if k is not SandboxKind.HARBOR]
    if text not in choices:
        hint = " (Harbor's agent opens its own)" if text == SandboxKind.HARBOR.value else ""
        raise typer.BadParameter(f"unknown sandbox kind {text!r}{hint}; expected one of "
                                 f"{', '.join(choices)}")
    return SandboxKind(text)


SkillOpt = Annotated[
    SkillChoice | None,
    typer.Option("--skill", parser=parse_skill, metavar="DIR|none",
                 help="JudgeSkill directory, or 'none' (a judge without JudgeSkill)."),
]
ModelOpt = Annotated[str | None, typer.Option("--model", help="Model name for model judges.")]
ModelsOpt = Annotated[
    str | None, typer.Option("--models", help="Comma-separated models of a multi-judge panel.")
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="Messages API root (default $ANTHROPIC_BASE_URL or Anthropic)."
    ),
]
SandboxOpt = Annotated[
    SandboxKind | None,
    typer.Option("--sandbox", parser=parse_sandbox, metavar="auto|docker|local|none",
                 help="Where the judge runs commands (default: the judge's own choice)."),
]
ReplayOpt = Annotated[
    Path | None,
    typer.Option(
        "--replay", help="Answer model calls from the transcripts of this run folder (no API)."
    ),
]
AbstainOpt = Annotated[
    bool,
    typer.Option(
        "--allow-abstain", help="Let the judge abstain; reported as coverage, never pass or fail."
    ),
]
CalibrationOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--calibration", metavar="FILE",
        help="Calibration file from `calibrate`: decide only at or above its threshold, abstain "
             "below. A cascade takes one per stage, in stage order (one fewer: last stage forced).",
    ),
]
KnobsOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", metavar="KEY=VALUE",
                 help="Judge knob (the value is JSON, else a string), e.g. -o max_turns=30; "
                      "repeatable."),
]


def parse_knobs(pairs: list[str]) -> dict[str, Any]:
    """KEY=VALUE pairs; a value that is not JSON is kept as a string (e.g. a model name)."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--option")
        try:
            parsed[key] = json.loads(value)
        except ValueError:
            parsed[key] = value
    return parsed


def judge_options(
    *,
    skill: SkillChoice | None = None,
    model: str | None = None,
    models: str | None = None,
    base_url: str | None = None,
    sandbox: SandboxKind | None = None,
    replay: Path | None = None,
    allow_abstain: bool = False,
    knobs: list[str] | None = None,
    calibration: list[Path] | None = None,
) -> JudgeOptions:
    return JudgeOptions(
        skill=skill,
        model=model,
        models=[m.strip() for m in models.split(",") if m.strip()] if models else [],
        base_url=base_url,
        sandbox=sandbox,
        replay=replay,
        allow_abstain=allow_abstain,
        calibration=list(calibration or []),
        extra=parse_knobs(knobs or []),
    )


# The judge options every judging command takes, in help order: (parameter, annotation, default).
_JUDGE_PARAMETERS: tuple[tuple[str, Any, Any], ...] = (
    ("skill", SkillOpt, None),
    ("model", ModelOpt, None),
    ("models", ModelsOpt, None),
    ("base_url", BaseUrlOpt, None),
    ("sandbox", SandboxOpt, None),
    ("replay", ReplayOpt, None),
    ("allow_abstain", AbstainOpt, False),
    ("calibration", CalibrationOpt, None),
    ("option", KnobsOpt, None),
)


def with_judge_options[R](command: Callable[..., R]) -> Callable[..., R]:
    """Give a command the judge options, declared once here: the command takes a keyword
    parameter `options: JudgeOptions`, and typer sees --skill, --model, ..., -o in its place."""
    hints = get_type_hints(command, include_extras=True)
    own = [p.replace(annotation=hints[p.name])
           for p in inspect.signature(command).parameters.values()]
    at = [p.name for p in own].index("options")  # the judge options show there in --help
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                               annotation=annotation)
             for name, annotation, default in _JUDGE_PARAMETERS]
    parameters = [*own[:at], *added, *own[at + 1:]]

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> R:
        said = {name: kwargs.pop(name) for name, _, _ in _JUDGE_PARAMETERS}
        knobs = said.pop("option")
        return command(*args, **kwargs, options=judge_options(**said, knobs=knobs))

    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=hints.get("return"))
    run.__annotations__ = {**{p.name: p.annotation for p in parameters},
                           "return": hints.get("return")}
    return run


def _check_skill(options: JudgeOptions) -> None:
    """A --skill that is not a folder ends the command before any judge reads a file of it."""
    skill = options.skill
    if not isinstance(skill, Path) or skill.is_dir():
        return
    near = sorted(p.name for p in skill.parent.iterdir() if p.is_dir()) \
        if skill.parent.is_dir() else []
    hint = f"; {skill.parent} holds {', '.join(near)}" if near else ""
    what = "is not a folder" if skill.exists() else "does not exist"
    raise fail(f"--skill {skill}: {what} (a JudgeSkill is a folder such as judgeskills/v1"
               f"{hint})")


def _config_error(name: str, exc: Exception) -> typer.Exit:
    """One line naming what was wrong: an unknown judge names --judge; the judges' own messages
    name the flag (--sandbox, -o KEY, ...) or the missing key themselves."""
    if isinstance(exc, UnknownJudgeError):
        return fail(f"--judge {name}: {exc}")
    return fail(str(exc))


def check_or_exit(name: str, options: JudgeOptions) -> None:
    """End the command as a usage error (exit 2) when `options` do not fit judge `name`: an
    unknown judge, an option it does not use, an unknown knob or a bad value. Builds nothing."""
    _check_skill(options)
    try:
        check_options(name, options)
    except ValueError as exc:
        raise _config_error(name, exc) from None


def build_or_exit(name: str, options: JudgeOptions) -> Judge:
    """Build the judge, or end the command with the configuration problem as a usage error.

    Unknown judges, options the judge does not use, bad knobs, broken skills (all ValueErrors),
    unreadable files and a client that cannot be made (e.g. no API key for a remote server)
    are configuration problems: one line each (exit 2).
    """
    _check_skill(options)
    try:
        return build_judge(name, options)
    except (ValueError, OSError, ModelError) as exc:
        raise _config_error(name, exc) from None
