"""Single-call structured output: a forced tool call whose input is validated by a pydantic model.

Judges never parse free text: the model must call the named tool; its input must validate.
An answer that does not (no tool call, wrong tool, invalid input) is sent back once with the
problem (a repair turn: the error as the call's tool_result, or as text when there was no
call); a second unusable answer raises `OutputError`, and the judge turns it into a
`Decision.ERROR` verdict. Both errors carry the usage spent so far (`.usage`), so a failed
judgment's tokens, failed calls and retries still reach the run's accounting.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.core import Usage
from judge_runner.judges.digest import Selection
from judge_runner.models import ModelClient, ModelError, ModelRequest, ModelResponse, system_blocks
from judge_runner.templates import environment
from judge_runner.untrusted import TRUST_RULE
from judge_runner.validation import problems


class OutputError(ValueError):
    """The model's answer is not the required tool call with valid input; `usage`: spent."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or Usage()


def spent(exc: BaseException) -> Usage:
    """The usage a failure carries (ModelError, OutputError), else none."""
    usage = getattr(exc, "usage", None)
    return usage if isinstance(usage, Usage) else Usage()


class PromptTooLarge(ValueError):
    """The case's prompt cannot fit the judge's prompt budget even after every cut."""


# What ends a one-call judgment as an error verdict: an unreadable case package (OSError, or a
# ValidationError of its JSON), a model call that failed for good, an answer that is not usable,
# a prompt that cannot fit (no call is made then).
FAILURES = (OSError, ValidationError, ModelError, OutputError, PromptTooLarge)


def check_fits(selection: Selection) -> None:
    """Raise PromptTooLarge when the digest is over budget after every cut the policy allows:
    sending it would overflow the model's context (or bill for a prompt the judge cannot
    use), so the case is refused with a clear error instead."""
    if selection.over_budget:
        raise PromptTooLarge(
            f"the case does not fit the prompt budget: about {selection.prompt_tokens_est:,} "
            f"tokens after every cut, max_prompt_tokens {selection.max_tokens:,}; no model call "
            "was made (raise -o max_prompt_tokens if the model's context allows)")


def failure_reason(exc: Exception) -> str:
    """The error verdict's reason for one of FAILURES."""
    if isinstance(exc, ModelError):
        return f"model call failed: {exc}"
    if isinstance(exc, OutputError):
        return f"unparseable output: {exc}"
    if isinstance(exc, PromptTooLarge):
        return f"prompt too large: {exc}"
    return f"case package unreadable: {exc}"


class VerdictInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Literal["pass", "fail", "abstain"]
    rationale: str = Field(min_length=1)
    # How likely the decision is right, as the model states it (0.5: a guess, 1: certain).
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


def render(template: str, **values: Any) -> str:
    """A prompt template of this package; `trust_rule` (how to read the run's text) is given."""
    return environment("judge_runner.judges").get_template(template).render(
        trust_rule=TRUST_RULE, **values)


def tool_spec(name: str, description: str, model: type[BaseModel],
              decisions: list[str] | None = None) -> dict[str, Any]:
    """A tool definition from a pydantic model; `decisions` narrows a `decision` enum."""
    schema = model.model_json_schema()
    if decisions is not None:
        schema["properties"]["decision"]["enum"] = decisions
    return {"name": name, "description": description, "input_schema": schema}


def decisions(allow_abstain: bool) -> list[str]:
    return ["pass", "fail", "abstain"] if allow_abstain else ["pass", "fail"]


def call_tool[T: BaseModel](
    client: ModelClient, *, model: str, system: str, user: str, tool: dict[str, Any],
    parse: type[T], max_tokens: int,
) -> tuple[T, ModelResponse]:
    """One request forcing `tool`, plus one repair turn if the answer is unusable; returns the
    validated input and the last response, whose usage is that of both calls.

    Raises ModelError (from the client; `.usage` includes earlier calls) or OutputError.
    """
    request = ModelRequest(
        model=model, system=system_blocks([system]),
        messages=[{"role": "user", "content": user}],
        tools=[tool], tool_choice={"type": "tool", "name": tool["name"]},
        max_tokens=max_tokens, temperature=0.0,
    )
    usage = Usage()
    first_problem: str | None = None
    while True:
        try:
            response = client.complete(request)
        except ModelError as exc:
            exc.prior = exc.prior + usage
            raise
        usage = usage + response.usage
        call, problem = _check_answer(response, tool["name"])
        if problem is None:
            try:
                parsed = parse.model_validate(call.get("input") if call else None)
            except ValidationError as exc:
                problem = f"invalid {tool['name']} input: {problems(exc, 'input')}"
            else:
                return parsed, response.model_copy(update={"usage": usage})
        if first_problem is not None:
            raise OutputError(f"{problem} (after a repair turn; the first answer: "
                              f"{first_problem})", usage)
        first_problem = problem
        request = _repair(request, response.content, call,
                          f"error: {problem}. Call {tool['name']} again, with input that "
                          "matches its schema exactly.")


def _check_answer(response: ModelResponse,
                  name: str) -> tuple[dict[str, Any] | None, str | None]:
    calls = [b for b in response.content if b.get("type") == "tool_use" and b.get("name") == name]
    if calls:
        return calls[0], None
    other = next((b for b in response.content if b.get("type") == "tool_use"), None)
    kinds = [str(b.get("name") or b.get("type")) for b in response.content]
    return other, (f"expected a {name} call, got {kinds} "
                   f"(stop_reason {response.stop_reason})")


def _repair(request: ModelRequest, answer: list[dict[str, Any]], call: dict[str, Any] | None,
            feedback: str) -> ModelRequest:
    """The conversation plus the problem: as the error result of the model's call (every
    tool_use must be answered), or as text when it made none."""
    if call is not None:
        reply: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": str(call.get("id")),
                                        "is_error": True, "content": feedback}]
    else:
        reply = [{"type": "text", "text": feedback}]
    messages = [*request.messages, {"role": "assistant", "content": answer or
                                    [{"type": "text", "text": "(no answer)"}]},
                {"role": "user", "content": reply}]
    return request.model_copy(update={"messages": messages})
