"""The agent judge: plan → inspections in the case sandbox → verdict, following a JudgeSkill.

`make_judge(options)` builds it from `AgentSettings`. The JudgeSkill is never implied: the
options name one (`skill`) or say explicitly that there is none (`NO_SKILL`, `--skill none`).
Budgets are knobs (max_turns, max_total_tokens, max_wall_s, max_invalid, max_nudges,
max_output_tokens, ...); an unknown knob is an error. `sessions` (default 1) judges each case by
that many sessions and their vote (`voting.py`), told apart by the example sets drawn from
`examples` (with `example_split`, `per_set`, `example_chars`, `seed` as for the direct judge),
which it therefore requires.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationInfo, field_validator

from judge_runner.cases import CasePackage
from judge_runner.judges.agent import prompt
from judge_runner.judges.agent.judge import AgentJudge, Budgets
from judge_runner.judges.agent.tools import DEFAULT_PAGE_CHARS, tool_definitions
from judge_runner.judges.annotators import ExampleSettings
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


class AgentSettings(ModelJudgeSettings, Budgets, ExampleSettings):
    bad_value = "budget"

    skill: Path | NoSkill | None = None
    sandbox: SandboxKind = SandboxKind.AUTO
    # Checked after the fields of the base classes, `examples` among them (absent from
    # `info.data` when it failed its own check, which is then the error reported).
    sessions: int = Field(default=1, ge=1, le=15)

    @field_validator("sessions")
    @classmethod
    def _sessions_need_examples(cls, sessions: int, info: ValidationInfo) -> int:
        if sessions > 1 and "examples" in info.data and info.data["examples"] is None:
            raise ValueError(f"{sessions} sessions at temperature 0 would all be the same "
                             "session: give -o examples=DATASET (labelled dev cases) to draw "
                             "each one's example set from")
        return sessions

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
        """The sessions (`sessions`, each one the same shape): the first request (system
        prompt with the skill, tools, the case message) and the turn, answer and context
        budgets."""
        skill = None if self.skill in (None, NoSkill.NONE) else load_skill(self.skill)
        first = prompt_tokens(prompt.render_system(skill, self.allow_abstain),
                              tool_definitions(self.allow_abstain),
                              prompt.render_case(case, DEFAULT_PAGE_CHARS))
        return CaseCalls(agent=AgentShape(self.model or "", first, self.max_turns,
                                          self.max_output_tokens, self.max_context_tokens,
                                          self.sessions))


@takes(AgentSettings, "agent")
def make_judge(settings: AgentSettings) -> AgentJudge:
    """Build the agent judge. Raises JudgeConfigError for a missing model, no skill choice (a
    skill directory or NO_SKILL), a bad skill directory or examples that cannot be read."""
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
        sessions=settings.drawn(settings.sessions, "agent"),
    )
