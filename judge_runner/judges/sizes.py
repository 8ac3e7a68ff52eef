"""What judging one case asks of the models, read from the prompts a judge would send, without
building the judge or calling anything: the basis of cost estimates before a run.

Each judge that can size its calls says so on its options model (its `JudgeSettings`), which is
all an estimate has: a judge cannot always be built where it is estimated (no API key, no
sandbox), its options always can. Such an options model is `CallsSized`: its `case_calls(case)`
renders the prompts the judge would send on `case` (system prompt, user message, tool
definitions) with the judge's own functions and sizes them at the 4 characters a token the
digest budget uses, giving one `Call` per model request of a one-call judge, or an
`AgentShape` for a judge whose calls depend on its session (the first request's size, the turn
and output budgets).

`case_calls(name, options, case)` is the registry's side: the judge's options validated as
`build_judge` would, and their calls; a judge that forwards options (the cascade) sums its
stages, each optional. A judge whose options do not size their calls (a factory outside the
package without them) gives `None`: its cost is unknown until a case of it has run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from judge_runner.cases import CasePackage, estimate_tokens
from judge_runner.judges.registry import (
    ForwardingFactory,
    JudgeOptions,
    JudgeSettings,
    TypedFactory,
    factory_of,
)
from judge_runner.models import ModelRequest


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


@runtime_checkable
class CallsSized(Protocol):
    """A judge's options that know the calls the judge makes on a case."""

    def case_calls(self, case: CasePackage) -> CaseCalls | None:
        """The calls judging `case` would make, sized from their rendered prompts; None when
        these options cannot tell (the judge could not be built from them). Raises OSError /
        ValueError when the case cannot be read."""
        ...


def prompt_tokens(*parts: str | dict[str, Any] | list[Any]) -> int:
    """The estimated tokens of prompt parts: text as it is, a tool definition as its JSON."""
    return sum(estimate_tokens(p if isinstance(p, str) else json.dumps(p)) for p in parts)


def request_tokens(request: ModelRequest) -> int:
    """The estimated tokens of a request as it would be sent: its system blocks, the text of its
    messages and its tool definitions."""
    texts = [str(block.get("text", "")) for block in request.system]
    for message in request.messages:
        content = message["content"]
        texts += [content] if isinstance(content, str) else [
            str(block.get("text", "")) for block in content]
    return prompt_tokens(*texts, *(request.tools or []))


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
    return settings.case_calls(case) if isinstance(settings, CallsSized) else None
