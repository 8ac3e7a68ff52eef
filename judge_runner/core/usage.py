"""Token and cost accounting of model calls, carried by every verdict and run summary."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    """Token and cost accounting; additive."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0  # uncached input tokens
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    retries: int = 0  # attempts beyond the first, summed over calls, failed ones included
    failed_calls: int = 0  # calls that failed for good (their retries are in `retries`)

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
            failed_calls=self.failed_calls + other.failed_calls,
        )
