"""The real ModelClient: the anthropic SDK against any server speaking the Messages API.

The SDK's own retries are switched off (`max_retries=0`) so that every retry is ours: counted,
logged, bounded by a RetryPolicy (see `retry.py`) and reported in `Usage.retries`. A call that
fails for good raises ModelError with the status, the server's message and the attempt count —
never the API key, which is also scrubbed from any text a server might echo back. What does not
depend on the wire (retries, the temperature fallback, failures) is `WireClient`'s.
"""

from __future__ import annotations

import os
from typing import Any

import anthropic
from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.log import get_logger
from judge_runner.models.base import ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.models.pricing import PriceTable
from judge_runner.models.retry import RetryPolicy, is_retryable, retry_after_s
from judge_runner.models.wire import (
    LOCAL_DUMMY_KEY,
    ModelCallError,
    WireClient,
    is_local,
    malformed_answer,
    safe_url,
)

__all__ = ["LOCAL_DUMMY_KEY", "AnthropicClient", "ModelCallError", "is_local", "safe_url"]

API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
DEFAULT_BASE_URL = "https://api.anthropic.com"

log = get_logger(__name__)


class _WireUsage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class _WireMessage(BaseModel):
    """The parts of a Messages API response we rely on; anything else is ignored."""

    model_config = ConfigDict(extra="ignore")

    id: str
    model: str | None = None
    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: _WireUsage


def resolve_api_key(base_url: str) -> str:
    """The key from ANTHROPIC_API_KEY; a dummy for local servers; else ModelError."""
    key = os.environ.get(API_KEY_ENV, "").strip()
    if key:
        return key
    if is_local(base_url):
        return LOCAL_DUMMY_KEY
    raise ModelError(f"{API_KEY_ENV} is not set; it is needed to call {safe_url(base_url)} "
                     "(local servers such as http://127.0.0.1:PORT need no key)")


class AnthropicClient(WireClient):
    """ModelClient over `anthropic.Anthropic` (the Messages API). Thread-safe.

    base_url: server root; default $ANTHROPIC_BASE_URL, else https://api.anthropic.com.
    api_key: default $ANTHROPIC_API_KEY (a dummy for a local base_url when unset).
    timeout_s: per-attempt timeout; a timeout is retried like a 5xx (default 300).
    retry: RetryPolicy bounding attempts and waits (default RetryPolicy()).
    prices: PriceTable for `Usage.cost_usd` (default: bundled table + $JUDGE_RUNNER_PRICES).
    """

    _api_error = anthropic.APIError
    _timeout_error = anthropic.APITimeoutError
    _connection_error = anthropic.APIConnectionError

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 300.0,
        retry: RetryPolicy | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        root = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        key = api_key or resolve_api_key(root)
        super().__init__(base_url=root, api_key=key, timeout_s=timeout_s, retry=retry,
                         prices=prices)
        self._sdk = anthropic.Anthropic(api_key=key, base_url=root, max_retries=0,
                                        timeout=timeout_s)

    # --- the Messages wire ---------------------------------------------------------------
    def _send(self, request: ModelRequest, send_temperature: bool, timeout_s: float) -> str:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": request.messages,
            "timeout": timeout_s,
        }
        if send_temperature:
            # SDK 1.x dropped sampling kwargs from its signature; the API still takes them.
            kwargs["extra_body"] = {"temperature": request.temperature}
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = request.tools
        if request.tool_choice is not None:
            kwargs["tool_choice"] = request.tool_choice
        return self._sdk.messages.with_raw_response.create(**kwargs).text()

    def _is_retryable(self, err: BaseException) -> bool:
        return is_retryable(err)

    def _retry_after(self, err: BaseException) -> float | None:
        return retry_after_s(err)

    def _status_detail(self, err: BaseException) -> str:
        if not isinstance(err, anthropic.APIStatusError):
            return str(err)
        return f"{err.type or 'error'}: {err.api_message or str(err.body)[:200]}"

    def _to_response(self, request: ModelRequest, data: object, attempts: int) -> ModelResponse:
        try:
            wire = _WireMessage.model_validate(data)
        except ValidationError as err:
            raise malformed_answer(err, expected="a Messages response",
                                   attempts=attempts) from None
        bad = [i for i, block in enumerate(wire.content) if not isinstance(block.get("type"), str)]
        if bad:
            raise ModelCallError(f"server answered content blocks without a type at {bad}",
                                 attempts=attempts, status=200)
        usage = wire.usage
        created = usage.cache_creation_input_tokens or 0
        read = usage.cache_read_input_tokens or 0
        cost = self.prices.cost(wire.model or request.model, input_tokens=usage.input_tokens,
                                cache_creation_input_tokens=created,
                                cache_read_input_tokens=read, output_tokens=usage.output_tokens)
        return ModelResponse(
            id=wire.id,
            content=wire.content,
            stop_reason=wire.stop_reason,
            usage=Usage(input_tokens=usage.input_tokens, cache_creation_input_tokens=created,
                        cache_read_input_tokens=read, output_tokens=usage.output_tokens,
                        cost_usd=cost, calls=1, retries=attempts - 1),
        )
