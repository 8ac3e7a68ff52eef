"""Judges by name, and the typed options each judge declares.

`JudgeOptions` is what a command said about a judge (the CLI's flags and its `-o KEY=VALUE`
knobs). Each judge declares a frozen options model (a `JudgeSettings`) holding exactly what it
uses, and its factory is decorated with `@takes(ThatModel, "name")`: building it validates the
request into that model, so an option the judge would not use (`--skill` for the direct judge),
an unknown knob or a bad value is a `JudgeConfigError` before any case is judged.
`check_options` runs the same validation without building (no client, no sandbox), for
commands that build their judges later.

Adding a judge is one module with a decorated `make_judge` and one line in `JUDGES` (its options
model may also size the judge's calls for cost estimates: `sizes.CallsSized`). A name
containing a colon, ``package.module:factory``, is imported as given: judges that live outside
the package (a user's own judge, a scripted judge in the tests) are used without registering
them; an undecorated factory receives the `JudgeOptions` as they are.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from judge_runner.judges.base import Judge
from judge_runner.sandbox import SandboxKind
from judge_runner.validation import message


class NoSkill(StrEnum):
    """The explicit choice of judging without a JudgeSkill (`--skill none`)."""

    NONE = "none"


NO_SKILL = NoSkill.NONE

type SkillChoice = Path | NoSkill  # a JudgeSkill directory, or explicitly none


class JudgeConfigError(ValueError):
    """The options cannot build this judge (e.g. no model given, an option it does not use)."""


class JudgeOptions(BaseModel):
    """Everything a command can say about a judge; a field left at its default was not said."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    skill: Path | NoSkill | None = None  # None: not said
    model: str | None = None
    models: list[str] = Field(default_factory=list)  # multi-judge panel
    base_url: str | None = None
    sandbox: SandboxKind | None = None  # None: the judge's own default
    allow_abstain: bool = False
    replay: Path | None = None  # a recorded run dir: answer model calls from its recordings
    # calibration files: one for a judge, one per stage for a cascade (`calibrated.py`)
    calibration: list[Path] = Field(default_factory=list)
    extra: dict[str, JsonValue] = Field(default_factory=dict)  # -o KEY=VALUE knobs, unchecked

    def said(self) -> dict[str, Any]:
        """The flags given a value other than their default (the knobs are in `extra`)."""
        return {name: getattr(self, name) for name, info in type(self).model_fields.items()
                if name != "extra" and getattr(self, name) != info.get_default(
                    call_default_factory=True)}


FLAGS = frozenset(JudgeOptions.model_fields) - {"extra"}
# Flags the registry handles for every judge, not the judge's own options model.
WRAPPING = frozenset({"calibration"})


class JudgeSettings(BaseModel):
    """Base of every judge's options: frozen, and nothing it does not declare."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # How a value error is introduced ("bad budget: ..."): the word a judge's users know.
    bad_value: ClassVar[str] = "option"

    allow_abstain: bool = False


def declared_knobs(settings: type[JudgeSettings]) -> frozenset[str]:
    """The `-o` knobs an options model declares: its fields that are not command flags."""
    return frozenset(settings.model_fields) - FLAGS


def settle[S: JudgeSettings](settings: type[S], request: JudgeOptions, judge: str) -> S:
    """Validate `request` into the judge's `settings`.

    Raises JudgeConfigError naming an unknown knob (with the known ones), a flag the judge does
    not use, or a value its model refuses.
    """
    knobs = sorted(declared_knobs(settings))
    unknown = sorted(set(request.extra) - set(knobs))
    if unknown:
        said_o = ", ".join(f"-o {k}" for k in unknown)
        raise JudgeConfigError(f"{said_o}: unknown option(s) for the {judge} judge: {unknown}; "
                               f"known: {', '.join(knobs) or 'none'}")
    said = {k: v for k, v in request.said().items() if k not in WRAPPING}
    if said.get("sandbox") is SandboxKind.NONE and "sandbox" not in settings.model_fields:
        del said["sandbox"]  # "no sandbox" is what a judge that runs no command has anyway
    unused = sorted(set(said) - set(settings.model_fields))
    if unused:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in unused)
        raise JudgeConfigError(f"the {judge} judge does not use {flags}; leave it out")
    try:
        return settings.model_validate({**said, **request.extra})
    except ValidationError as exc:
        raise JudgeConfigError(f"{judge} judge: bad {settings.bad_value}: "
                               f"{_describe(exc)}") from None


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join([flag_of(error["loc"]), *(str(p) for p in error["loc"][1:])])
        if error["type"] == "value_error":  # a validator's own sentence, after the flag it is on
            parts.append(f"{flag_of(error['loc'])}: {message(error)}")
        elif error["type"] in ("bool_type", "bool_parsing"):
            parts.append(f"{where} must be true or false, got {error['input']!r}")
        else:
            parts.append(f"{where}: {error['msg'].lower()}, got {error['input']!r}")
    return "; ".join(parts)


def flag_of(loc: tuple[int | str, ...]) -> str:
    """The command-line spelling of an options field: `--sandbox` for a flag, `-o KEY` for a
    knob, `options` for a check of several fields at once."""
    if not loc:
        return "options"
    name = str(loc[0])
    return f"--{name.replace('_', '-')}" if name in FLAGS else f"-o {name}"


class JudgeFactory(Protocol):
    def __call__(self, options: JudgeOptions) -> Judge: ...


@dataclass(frozen=True)
class TypedFactory[S: JudgeSettings, J]:
    """A judge factory over typed options; called with the `JudgeOptions` of a command."""

    judge: str
    settings: type[S]
    build: Callable[[S], J]

    def __call__(self, options: JudgeOptions) -> J:
        return self.build(self.check(options))

    def check(self, options: JudgeOptions) -> S:
        return settle(self.settings, options, self.judge)


@dataclass(frozen=True)
class ForwardingFactory[S: JudgeSettings, J]:
    """A judge that takes its own knobs and hands every other option to the judges it builds
    (the cascade's stages); checking its options checks each judge's share too. The judge
    receives the command's calibration files itself (one per stage)."""

    judge: str
    settings: type[S]
    build: Callable[[S, JudgeOptions], J]  # own settings, the options of the other judges
    forwards_to: Callable[[S, JudgeOptions], list[tuple[str, JudgeOptions]]]

    def __call__(self, options: JudgeOptions) -> J:
        settings, rest = self.split(options)
        return self.build(settings, rest)

    def check(self, options: JudgeOptions) -> S:
        settings, rest = self.split(options)
        for name, share in self.forwards_to(settings, rest):
            check_options(name, share)
        return settings

    def split(self, options: JudgeOptions) -> tuple[S, JudgeOptions]:
        own = set(self.settings.model_fields)
        mine = JudgeOptions(allow_abstain=options.allow_abstain,
                            extra={k: v for k, v in options.extra.items() if k in own})
        rest = options.model_copy(
            update={"extra": {k: v for k, v in options.extra.items() if k not in own}})
        return settle(self.settings, mine, self.judge), rest


def takes[S: JudgeSettings, J](
    settings: type[S], judge: str
) -> Callable[[Callable[[S], J]], TypedFactory[S, J]]:
    """Declare the options model of a judge factory (see the module docstring)."""

    def wrap(build: Callable[[S], J]) -> TypedFactory[S, J]:
        return TypedFactory(judge, settings, build)

    return wrap


def forwards[S: JudgeSettings, J](
    settings: type[S], judge: str,
    to: Callable[[S, JudgeOptions], list[tuple[str, JudgeOptions]]],
) -> Callable[[Callable[[S, JudgeOptions], J]], ForwardingFactory[S, J]]:
    """Declare the own options of a judge that forwards the rest to the judges
    `to(settings, rest)` names, each with its share of the options."""

    def wrap(build: Callable[[S, JudgeOptions], J]) -> ForwardingFactory[S, J]:
        return ForwardingFactory(judge, settings, build, to)

    return wrap


JUDGES: dict[str, str] = {
    "rules": "judge_runner.judges.rules:make_judge",
    "agent": "judge_runner.judges.agent:make_judge",
    "direct": "judge_runner.judges.direct:make_judge",
    "rubric": "judge_runner.judges.rubric:make_judge",
    "multi": "judge_runner.judges.multi:make_judge",
    "cascade": "judge_runner.judges.cascade:make_judge",
    "checklist": "judge_runner.checklist.judge:make_judge",
}


class UnknownJudgeError(ValueError):
    pass


def factory_of(name: str) -> JudgeFactory:
    """The factory of a registered name or a `module:factory` path.

    Raises UnknownJudgeError for an unknown name or a path whose module or factory is missing.
    """
    if ":" in name:
        target = name
    else:
        try:
            target = JUDGES[name]
        except KeyError:
            raise UnknownJudgeError(
                f"unknown judge {name!r}; known judges: {', '.join(sorted(JUDGES))} "
                "(or give a factory as package.module:make_judge)"
            ) from None
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing_itself = exc.name is not None and module_name.startswith(exc.name)
        if ":" not in name or not missing_itself:
            raise  # a dependency of the judge is missing: show the real error
        raise UnknownJudgeError(f"judge {name!r}: module {module_name!r} not found") from None
    factory: JudgeFactory | None = getattr(module, attr, None)
    if factory is None:
        raise UnknownJudgeError(f"judge factory {name!r}: {module_name} has no {attr!r}")
    return factory


def build_judge(name: str, options: JudgeOptions) -> Judge:
    """Build a judge by registered name or `module:factory` path (UnknownJudgeError, or the
    factory's JudgeConfigError / OSError / ModelError; CalibrationError for a calibration file
    that cannot be read or was made for another configuration).

    With `options.calibration`, a judge that forwards options (the cascade) takes the files
    itself, one per stage; any other judge takes exactly one and decides by it.
    """
    factory = factory_of(name)
    if not options.calibration or isinstance(factory, ForwardingFactory):
        return factory(options)
    _one_calibration(name, options)
    from judge_runner.calibration import load
    from judge_runner.judges.calibrated import calibrated

    judge = factory(options.model_copy(update={"calibration": []}))
    return calibrated(judge, load(options.calibration[0]), str(options.calibration[0]))


def _one_calibration(name: str, options: JudgeOptions) -> None:
    if len(options.calibration) != 1:
        raise JudgeConfigError(f"the {name} judge takes one --calibration file, got "
                               f"{len(options.calibration)} (a cascade takes one per stage)")


def check_options(name: str, options: JudgeOptions) -> None:
    """Validate `options` for judge `name` without building it; the errors of `build_judge`
    that options alone decide. A factory that declares no options model is not checked."""
    factory = factory_of(name)
    if options.calibration and not isinstance(factory, ForwardingFactory):
        _one_calibration(name, options)
    if isinstance(factory, TypedFactory | ForwardingFactory):
        factory.check(options)


def knobs_of(name: str) -> frozenset[str] | None:
    """The `-o` knobs judge `name` declares; None for a judge that forwards options or a
    factory without an options model (either is handed every knob)."""
    factory = factory_of(name)
    if isinstance(factory, TypedFactory):
        return declared_knobs(factory.settings)
    return None


def uses_flag(name: str, flag: str) -> bool:
    """Whether judge `name` takes the command flag `flag` (a `JudgeOptions` field). A judge that
    forwards options, or a factory without an options model, is taken to use every flag."""
    factory = factory_of(name)
    if isinstance(factory, TypedFactory):
        return flag in factory.settings.model_fields
    return True
