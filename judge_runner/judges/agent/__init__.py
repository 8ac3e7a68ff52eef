"""The agent judge: plan → inspections in the case sandbox → verdict, following a JudgeSkill.

`make_judge(options)` builds it from `AgentSettings`. The JudgeSkill is never implied: the
options name one (`skill`) or say explicitly that there is none (`NO_SKILL`, `--skill none`).
Budgets are knobs (max_turns, max_total_tokens, max_wall_s, max_invalid, max_nudges,
max_output_tokens, ...); an unknown knob is an error.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator

from judge_runner.cases import CasePackage
from judge_runner.judges.agent import prompt
from judge_runner.judges.agent.judge import AgentJudge, Budgets
from judge_runner.judges.agent.tools import DEFAULT_PAGE_CHARS, tool_definitions
from judge_runner.judges.llm import (
    JudgeConfigError,
    ModelJudgeSettings,
    client_factory,
    require_model,
    sandbox_factory,
)
from judge_runner.judges.registry import NoSkill, takes
from judge_runner.judges.sizes import AgentShape, CaseCalls, prompt_tokens
from judge_runner.sandbox import SandboxKind
from judge_runner.skills import SkillError, load_skill

__all__ = ["AgentJudge", "AgentSettings", "Budgets", "make_judge"]


class AgentSettings(ModelJudgeSettings, Budgets):
    bad_value = "budget"

    skill: Path | NoSkill | None = None
    sandbox: SandboxKind = SandboxKind.AUTO

    @field_validator("sandbox")
    @classmethod
    def _needs_a_sandbox(cls, kind: SandboxKind) -> SandboxKind:
        if kind is SandboxKind.NONE:
            raise ValueError("the agent judge inspects cases in a sandbox: use --sandbox "
                             "docker, local or auto")
        return kind

    def budgets(self) -> Budgets:
        return Budgets.model_validate(self.model_dump(include=set(Budgets.model_fields)))

    def case_calls(self, case: CasePackage) -> CaseCalls:
        """A session: its first request (system prompt with the skill, tools, the case
        message) and its turn, answer and context budgets."""
        skill = None if self.skill in (None, NoSkill.NONE) else load_skill(self.skill)
        first = prompt_tokens(prompt.render_system(skill, self.allow_abstain),
                              tool_definitions(self.allow_abstain),
                              prompt.render_case(case, DEFAULT_PAGE_CHARS))
        return CaseCalls(agent=AgentShape(self.model or "", first, self.max_turns,
                                          self.max_output_tokens, self.max_context_tokens))


@takes(AgentSettings, "agent")
def make_judge(settings: AgentSettings) -> AgentJudge:
    """Build the agent judge. Raises JudgeConfigError for a missing model, no skill choice (a
    skill directory or NO_SKILL) or a bad skill directory."""
    model = require_model(settings, "agent")
    if settings.skill is None:
        raise JudgeConfigError("the agent judge needs --skill DIR (or --skill none to judge "
                               "without a JudgeSkill)")
    try:
        skill = None if settings.skill is NoSkill.NONE else load_skill(settings.skill)
    except SkillError as exc:
        raise JudgeConfigError(str(exc)) from None
    return AgentJudge(
        model=model,
        skill=skill,
        clients=client_factory(settings),
        sandboxes=sandbox_factory(settings.sandbox),
        allow_abstain=settings.allow_abstain,
        budgets=settings.budgets(),
        name="agent" if skill is not None else "agent-noskill",
        sandbox=settings.sandbox,
    )
