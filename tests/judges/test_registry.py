"""The judge registry validates what a command said into each judge's own options."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.judges import NO_SKILL, JudgeConfigError, JudgeOptions, check_options
from judge_runner.judges.direct import OneCallSettings
from judge_runner.judges.registry import settle, uses_flag
from judge_runner.sandbox import SandboxKind


def test_typed_options_carry_the_knobs() -> None:
    options = JudgeOptions(model="m", extra={"max_prompt_tokens": 5, "timeout_s": 2})
    settings = settle(OneCallSettings, options, "direct")
    assert (settings.model, settings.max_prompt_tokens, settings.timeout_s) == ("m", 5, 2.0)
    with pytest.raises(Exception, match="frozen"):
        settings.model = "other"  # type: ignore[misc]


@pytest.mark.parametrize(("judge", "options", "message"), [
    ("direct", JudgeOptions(model="m", skill=Path("s")), "does not use --skill"),
    ("direct", JudgeOptions(model="m", sandbox=SandboxKind.DOCKER), "does not use --sandbox"),
    ("rubric", JudgeOptions(model="m", models=["a", "b"]), "does not use --models"),
    ("rules", JudgeOptions(skill=NO_SKILL), "skill"),
    ("direct", JudgeOptions(model="m", extra={"max_prompt_tokens": 0}), "max_prompt_tokens"),
    ("agent", JudgeOptions(model="m", skill=NO_SKILL, sandbox=SandboxKind.NONE),
     "inspects cases in a sandbox"),
    ("cascade", JudgeOptions(model="m", extra={"second": "direct", "max_turns": 3}),
     "-o max_turns: no stage of this cascade takes it (model stages: direct;"),
])
def test_options_a_judge_cannot_use_are_refused_before_building(
    judge: str, options: JudgeOptions, message: str
) -> None:
    with pytest.raises(JudgeConfigError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        check_options(judge, options)


def test_no_sandbox_is_what_a_judge_without_commands_has() -> None:
    check_options("direct", JudgeOptions(model="m", sandbox=SandboxKind.NONE))


@pytest.mark.parametrize(("judge", "flag", "used"), [
    ("rules", "base_url", False),
    ("direct", "base_url", True),
    ("agent", "sandbox", True),
    ("direct", "skill", False),
    ("cascade", "base_url", True),  # forwarded to its second stage
])
def test_uses_flag_answers_from_the_judge_options_model(judge: str, flag: str, used: bool) -> None:
    assert uses_flag(judge, flag) is used
