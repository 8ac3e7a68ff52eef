"""Judges by name. Each entry names a factory `make_judge(options: JudgeOptions) -> Judge`.

Adding a judge is one module with a `make_judge` and one line here. A name containing a colon,
``package.module:factory``, is imported as given: judges that live outside the package (a user's
own judge, a scripted judge in the tests) are used without registering them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.judges.base import Judge


class JudgeOptions(BaseModel):
    """Everything the CLI can say about a judge. Judges ignore options that do not apply."""

    model_config = ConfigDict(extra="forbid")

    skill: Path | None = None  # a JudgeSkill directory; None: none given
    no_skill: bool = False  # the caller chose to judge without a JudgeSkill (`--skill none`)
    model: str | None = None
    models: list[str] = Field(default_factory=list)  # multi-judge panel
    base_url: str | None = None
    sandbox: str = "auto"  # docker | local | auto | none
    allow_abstain: bool = False
    replay: Path | None = None  # a recorded run dir: answer model calls from its recordings
    extra: dict[str, Any] = Field(default_factory=dict)


class JudgeFactory(Protocol):
    def __call__(self, options: JudgeOptions) -> Judge: ...


JUDGES: dict[str, str] = {
    "rules": "judge_runner.judges.rules:make_judge",
    "agent": "judge_runner.judges.agent:make_judge",
    "direct": "judge_runner.judges.direct:make_judge",
    "rubric": "judge_runner.judges.rubric:make_judge",
    "multi": "judge_runner.judges.multi:make_judge",
    "cascade": "judge_runner.judges.cascade:make_judge",
}


class UnknownJudgeError(ValueError):
    pass


def build_judge(name: str, options: JudgeOptions) -> Judge:
    """Build a judge by registered name or `module:factory` path.

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
    return factory(options)
