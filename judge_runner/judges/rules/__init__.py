"""The rules judge (``--judge rules``): evidence checks declared in a JudgeSkill's checks.toml.

Public API: `make_judge` (registry factory), `RulesJudge`, `load_rules`/`dump_rules` and the
optimizer's `propose`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator

from judge_runner.cases import CasePackage
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.registry import JudgeSettings, NoSkill, takes
from judge_runner.judges.rules.judge import NAME, RulesJudge, default_skill_dir
from judge_runner.judges.rules.spec import RulesError, RuleSet, dump_rules, load_rules
from judge_runner.judges.sizes import CaseCalls
from judge_runner.sandbox import SandboxKind

__all__ = ["RuleSet", "RulesError", "RulesJudge", "RulesSettings", "dump_rules", "load_rules",
           "make_judge"]


class RulesSettings(JudgeSettings):
    """The rules judge has no knobs: its settings live in the JudgeSkill's checks.toml."""

    skill: Path | None = None  # default: the bundled judgeskills/v2
    sandbox: SandboxKind = SandboxKind.NONE

    @field_validator("skill", mode="before")
    @classmethod
    def _a_directory(cls, skill: object) -> object:
        if isinstance(skill, NoSkill):  # a str subclass: it would pass for a directory "none"
            raise ValueError("the rules judge reads its checks from a JudgeSkill: give --skill "
                             "DIR, or leave it out for the bundled one")
        return skill

    @field_validator("sandbox")
    @classmethod
    def _no_sandbox(cls, kind: SandboxKind) -> SandboxKind:
        # No check executes artifacts yet; AUTO is accepted as "whatever the judge needs".
        if kind not in (SandboxKind.NONE, SandboxKind.AUTO):
            raise ValueError(f"the rules judge runs without a sandbox; got sandbox="
                             f"{kind.value!r} (use --sandbox none)")
        return kind

    def case_calls(self, case: CasePackage) -> CaseCalls:
        """No call: the rules judge asks no model."""
        return CaseCalls()


@takes(RulesSettings, NAME)
def make_judge(settings: RulesSettings) -> RulesJudge:
    """Build the rules judge from `settings.skill` (a JudgeSkill directory holding checks.toml)
    or the bundled `judgeskills/v2`. Raises `RulesError` when checks.toml is missing or invalid
    and `JudgeConfigError` for a sandbox other than none/auto, any knob (it has none), or no
    bundled skill to default to."""
    skill = settings.skill or default_skill_dir()
    if settings.skill is None and not skill.is_dir():
        # An installed package has no source tree beside it to take judgeskills/v2 from.
        raise JudgeConfigError(f"no default JudgeSkill at {skill}; give one with --skill DIR")
    return RulesJudge(skill, allow_abstain=settings.allow_abstain)
