"""The ModelClient Protocol: how judges and optimizers talk to a model.

Requests and responses use the Anthropic Messages API shapes (content blocks as plain dicts), so
any server that speaks that API works: Anthropic, a proxy, or a local test server.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Token and cost accounting; additive."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0  # uncached input tokens
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    retries: int = 0  # attempts beyond the first, summed over calls (429/5xx/timeouts)

    @property
    def prompt_tokens(self) -> int:
        """Every input token of the calls: uncached, written to the cache and read from it."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def total_tokens(self) -> int:
        """Prompt and output tokens together (what token budgets count)."""
        return self.prompt_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            calls=self.calls + other.calls,
            retries=self.retries + other.retries,
        )


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
    """A model call failed for good (after retries, or a non-retryable error)."""


class ModelClient(Protocol):
    """Sends one Messages request. Thread-safe. Raises ModelError when the call fails for good."""

    def complete(self, request: ModelRequest) -> ModelResponse: ...
