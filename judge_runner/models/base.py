"""The ModelClient Protocol: how judges and optimizers talk to a model.

Requests and responses use the Anthropic Messages API shapes (content blocks as plain dicts), so
any server that speaks that API works: Anthropic, a proxy, or a local test server.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Usage as Usage


class ModelRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    system: list[dict[str, Any]]  # text blocks; the constant prefix carries cache_control
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    tool_choice: dict[str, Any] | None = None  # e.g. {"type": "any"}; None = the API default
    max_tokens: int = 4096
    temperature: float = 0.0


class ModelResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    content: list[dict[str, Any]]  # text / tool_use blocks
    stop_reason: str | None
    usage: Usage
    # True when the request went without its temperature because the model refused one: the
    # answer was sampled at the model's default, whatever the recorded request says.
    temperature_dropped: bool = False


class ModelError(RuntimeError):
    """A model call failed for good (after retries, or a non-retryable error).

    `attempts` is how many times it was sent (0: never sent, e.g. the wall budget had run out);
    `usage` is what the failure counts in the accounting: one failed call and its retries (a
    failed call has no token usage from the server), plus `prior`, the usage of earlier calls of
    the same judging step that a caller attaches before re-raising.
    """

    def __init__(self, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.prior = Usage()

    @property
    def usage(self) -> Usage:
        return self.prior + Usage(failed_calls=1, retries=max(self.attempts - 1, 0))


class ModelClient(Protocol):
    """Sends one Messages request. Thread-safe. Raises ModelError when the call fails for good."""

    def complete(self, request: ModelRequest) -> ModelResponse: ...
