"""Single-call structured output: a forced tool call whose input is validated by a pydantic model.

Judges never parse free text: the model must call the named tool; its input must validate.
`OutputError` is raised otherwise (no tool call, wrong tool, invalid input), and the judge turns
it into a `Decision.ERROR` verdict.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse
from judge_runner.models.caching import system_blocks
from judge_runner.templates import environment


class OutputError(ValueError):
    """The model's answer is not the required tool call with valid input."""


# What ends a one-call judgment as an error verdict: an unreadable case package (OSError, or a
# ValidationError of its JSON), a model call that failed for good, an answer that is not usable.
FAILURES = (OSError, ValidationError, ModelError, OutputError)


def failure_reason(exc: Exception) -> str:
    """The error verdict's reason for one of FAILURES."""
    if isinstance(exc, ModelError):
        return f"model call failed: {exc}"
    if isinstance(exc, OutputError):
        return f"unparseable output: {exc}"
    return f"case package unreadable: {exc}"


class VerdictInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Literal["pass", "fail", "abstain"]
    rationale: str = Field(min_length=1)


def render(template: str, **values: Any) -> str:
    return environment("judge_runner.judges").get_template(template).render(**values)


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
    """One request forcing `tool`; returns its validated input and the response.

    Raises ModelError (from the client) or OutputError.
    """
    response = client.complete(ModelRequest(
        model=model, system=system_blocks([system]),
        messages=[{"role": "user", "content": user}],
        tools=[tool], tool_choice={"type": "tool", "name": tool["name"]},
        max_tokens=max_tokens, temperature=0.0,
    ))
    calls = [b for b in response.content
             if b.get("type") == "tool_use" and b.get("name") == tool["name"]]
    if not calls:
        kinds = [str(b.get("name") or b.get("type")) for b in response.content]
        raise OutputError(f"expected a {tool['name']} call, got {kinds} "
                          f"(stop_reason {response.stop_reason})")
    try:
        return parse.model_validate(calls[0].get("input")), response
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise OutputError(f"invalid {tool['name']} input: {problems}") from None
