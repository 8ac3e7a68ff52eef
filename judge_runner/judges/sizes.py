"""What judging one case asks of the models, read from the prompts a judge would send, without
building the judge or calling anything: the basis of cost estimates before a run.

`case_calls(name, options, case)` gives, for a registered judge, one `Call` per model request
of a one-call judge (its rendered system prompt, user prompt and tool definition, sized by the
same 4-characters-a-token estimate the digest budget uses), or an `AgentShape` for the agent
judge, whose calls depend on the session (the first request's size, the turn and output
budgets). A judge these shapes do not describe (a factory outside the package) gives `None`:
its cost is unknown until a case of it has run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from judge_runner.cases import CasePackage, estimate_tokens
from judge_runner.judges import oneshot
from judge_runner.judges.digest import render_digest
from judge_runner.judges.registry import (
    ForwardingFactory,
    JudgeOptions,
    JudgeSettings,
    TypedFactory,
    factory_of,
)


@dataclass(frozen=True)
class Call:
    model: str
    prompt_tokens: int  # estimated: system + user + tool definitions
    max_output_tokens: int


@dataclass(frozen=True)
class AgentShape:
    model: str
    first_prompt_tokens: int  # system prompt, tools and the case overview
    max_turns: int
    max_output_tokens: int
    max_context_tokens: int
    sessions: int = 1  # sessions judging each case (their vote decides)


@dataclass(frozen=True)
class CaseCalls:
    """The model work of one case: fixed calls, or an agent session, or nothing (rules)."""

    calls: tuple[Call, ...] = ()
    agent: AgentShape | None = None
    optional: bool = False  # a staged judge may decide before these calls are made


def _tokens(*parts: str | dict[str, Any]) -> int:
    return sum(estimate_tokens(p if isinstance(p, str) else json.dumps(p)) for p in parts)


def settings_of(name: str, options: JudgeOptions) -> JudgeSettings | None:
    """The judge's validated options model (JudgeConfigError as `check_options`), or None for a
    factory that declares none."""
    factory = factory_of(name)
    if isinstance(factory, TypedFactory | ForwardingFactory):
        settings: JudgeSettings = factory.check(options)
        return settings
    return None


def case_calls(name: str, options: JudgeOptions, case: CasePackage) -> CaseCalls | None:
    """The calls judge `name` would make on `case`; None when its shape is not known here.
    Raises OSError / ValueError when the case cannot be read."""
    from judge_runner.judges.agent import AgentSettings
    from judge_runner.judges.direct import DirectSettings, OneCallSettings
    from judge_runner.judges.multi import MultiSettings
    from judge_runner.judges.rubric import RubricSettings
    from judge_runner.judges.rules import RulesSettings

    factory = factory_of(name)
    if isinstance(factory, ForwardingFactory):  # a cascade: each stage's calls, all optional
        own, rest = factory.split(options)
        calls: list[Call] = []
        agent = None
        for stage, share in factory.forwards_to(own, rest):
            inner = case_calls(stage, share, case)
            if inner is None:
                return None
            calls += inner.calls
            agent = agent or inner.agent
        return CaseCalls(tuple(calls), agent, optional=True)
    settings = settings_of(name, options)
    if isinstance(settings, RulesSettings):
        return CaseCalls()
    if isinstance(settings, AgentSettings):
        return CaseCalls(agent=_agent(settings, case))
    if isinstance(settings, MultiSettings):
        members = settings.models or [settings.model or ""] * settings.panel_size
        one = _direct(settings, case)
        return CaseCalls(tuple(Call(m, one.prompt_tokens, one.max_output_tokens)
                               for m in members))
    if isinstance(settings, RubricSettings):  # the rubric once, a grading call per annotator
        rubric, grading = _rubric(settings, case)
        return CaseCalls((rubric, *(grading,) * settings.annotators))
    if isinstance(settings, OneCallSettings):  # the direct judge: one call per annotator
        k = settings.annotators if isinstance(settings, DirectSettings) else 1
        return CaseCalls((_direct(settings, case),) * k)
    return None


def _direct(settings: Any, case: CasePackage) -> Call:
    digest, _ = render_digest(case, settings.max_prompt_tokens)
    system = oneshot.render("direct_system.md.j2", allow_abstain=settings.allow_abstain)
    tool = oneshot.tool_spec("submit_verdict", "Submit the decision on the run and its rationale.",
                             oneshot.VerdictInput, oneshot.decisions(settings.allow_abstain))
    return Call(settings.model or "", _tokens(system, digest, tool), settings.max_output_tokens)


def _rubric(settings: Any, case: CasePackage) -> tuple[Call, Call]:
    from judge_runner.judges.rubric import GradesInput, RubricInput, task_prompt

    model, out = settings.model or "", settings.max_output_tokens
    task = task_prompt(case)
    first = _tokens(oneshot.render("rubric_system.md.j2"), task,
                    oneshot.tool_spec("submit_rubric", "Submit the rubric.", RubricInput))
    digest, _ = render_digest(case, settings.max_prompt_tokens)
    # The grading prompt holds the digest and the rubric the first call wrote (at most its
    # answer budget).
    second = _tokens(oneshot.render("rubric_grade_system.md.j2",
                                    allow_abstain=settings.allow_abstain), digest,
                     oneshot.tool_spec("submit_grades", "", GradesInput)) + out
    return (Call(model, first, out), Call(model, second, out))


def _agent(settings: Any, case: CasePackage) -> AgentShape:
    from judge_runner.judges.agent import prompt
    from judge_runner.judges.agent.tools import DEFAULT_PAGE_CHARS, tool_definitions
    from judge_runner.judges.registry import NoSkill
    from judge_runner.skills import load_skill

    skill = None if settings.skill in (None, NoSkill.NONE) else load_skill(settings.skill)
    first = _tokens(prompt.render_system(skill, settings.allow_abstain),
                    json.dumps(tool_definitions(settings.allow_abstain)),
                    prompt.render_case(case, DEFAULT_PAGE_CHARS))
    return AgentShape(settings.model or "", first, settings.max_turns,
                      settings.max_output_tokens, settings.max_context_tokens,
                      settings.sessions)
