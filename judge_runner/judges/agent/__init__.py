"""The agent judge: plan → inspections in the case sandbox → verdict, following a JudgeSkill.

`make_judge(options)` builds it from JudgeOptions. The JudgeSkill is never implied: the
options name one (`skill`) or say explicitly that there is none (`no_skill`, `--skill none`).
Budgets come from `options.extra` (max_turns, max_total_tokens, max_wall_s, max_invalid,
max_nudges, max_output_tokens); an unknown key is an error.
"""

from __future__ import annotations

from judge_runner.judges.agent.judge import AgentJudge, Budgets
from judge_runner.judges.llm import (
    JudgeConfigError,
    check_knobs,
    client_factory,
    require_model,
    sandbox_factory,
)
from judge_runner.judges.registry import JudgeOptions
from judge_runner.skills import SkillError, load_skill

__all__ = ["AgentJudge", "Budgets", "make_judge"]


def make_judge(options: JudgeOptions) -> AgentJudge:
    """Build the agent judge. Raises JudgeConfigError for a missing model, no skill choice (a
    skill directory or `no_skill`), a bad skill directory or bad budget values."""
    model = require_model(options, "agent")
    if options.skill is None and not options.no_skill:
        raise JudgeConfigError("the agent judge needs --skill DIR (or --skill none to judge "
                               "without a JudgeSkill)")
    if options.skill is not None and options.no_skill:
        raise JudgeConfigError("both a JudgeSkill and no JudgeSkill were asked for")
    if options.sandbox == "none":
        raise JudgeConfigError("the agent judge inspects cases in a sandbox: use --sandbox "
                               "docker, local or auto")
    try:
        skill = load_skill(options.skill) if options.skill is not None else None
    except SkillError as exc:
        raise JudgeConfigError(str(exc)) from None
    budget_keys = set(Budgets.model_fields)
    check_knobs(options, "agent", budget_keys)
    try:
        budgets = Budgets(**{k: v for k, v in options.extra.items() if k in budget_keys})
    except ValueError as exc:
        raise JudgeConfigError(f"bad budget: {exc}") from None
    return AgentJudge(
        model=model,
        skill=skill,
        clients=client_factory(options),
        sandboxes=sandbox_factory(options),
        allow_abstain=options.allow_abstain,
        budgets=budgets,
        name="agent" if skill is not None else "agent-noskill",
        sandbox=options.sandbox,
    )
