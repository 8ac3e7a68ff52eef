"""Judges by name. Each entry names a factory `make_judge(options: JudgeOptions) -> Judge`.

Adding a judge is one module with a `make_judge` and one line here.
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

    skill: Path | None = None  # a JudgeSkill directory, or None for "no JudgeSkill"
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
}


class UnknownJudgeError(ValueError):
    pass


def build_judge(name: str, options: JudgeOptions) -> Judge:
    try:
        target = JUDGES[name]
    except KeyError:
        raise UnknownJudgeError(
            f"unknown judge {name!r}; known judges: {', '.join(sorted(JUDGES))}"
        ) from None
    module_name, _, attr = target.partition(":")
    factory: JudgeFactory = getattr(importlib.import_module(module_name), attr)
    return factory(options)
