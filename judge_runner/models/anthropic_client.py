"""The real ModelClient: the anthropic SDK against any server speaking the Messages API.

The SDK's own retries are switched off (`max_retries=0`) so that every retry is ours: counted,
logged, bounded by a RetryPolicy (see `retry.py`) and reported in `Usage.retries`. A call that
fails for good raises ModelError with the status, the server's message and the attempt count —
never the API key, which is also scrubbed from any text a server might echo back.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import anthropic
from pydantic import BaseModel, ConfigDict, ValidationError
from tenacity import RetryCallState

from judge_runner import cancel
from judge_runner.log import get_logger
from judge_runner.models.base import ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.models.pricing import PriceTable, price_table
from judge_runner.models.retry import Attempts, RetryPolicy, is_retryable, retry_after_s
from judge_runner.models.wire import (
    LOCAL_DUMMY_KEY,
    ModelCallError,
    call_failure,
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


class AnthropicClient:
    """ModelClient over `anthropic.Anthropic`. Thread-safe: one instance can serve many cases.

    base_url: server root; default $ANTHROPIC_BASE_URL, else https://api.anthropic.com.
    api_key: default $ANTHROPIC_API_KEY (a dummy for a local base_url when unset).
    timeout_s: per-attempt timeout; a timeout is retried like a 5xx (default 300).
    retry: RetryPolicy bounding attempts and waits (default RetryPolicy()).
    prices: PriceTable for `Usage.cost_usd` (default: bundled table + $JUDGE_RUNNER_PRICES).
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 300.0,
        retry: RetryPolicy | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        self._api_key = api_key or resolve_api_key(self.base_url)
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.prices = prices if prices is not None else price_table()
        self._lock = threading.Lock()
        self._no_temperature: set[str] = set()  # models that answered 400 to a temperature
        self._sdk = anthropic.Anthropic(api_key=self._api_key, base_url=self.base_url,
                                        max_retries=0, timeout=timeout_s)

    def __repr__(self) -> str:  # never show the key
        return f"AnthropicClient(base_url={safe_url(self.base_url)!r}, timeout_s={self.timeout_s})"

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One Messages call with retries.

        Temperature (0 by default) is sent unless the model has rejected it: newer models accept
        no sampling parameters, and a 400 that names `temperature` makes this client warn once
        and resend without one, for this and every later call to that model. Every response
        sent without a temperature says so (`temperature_dropped`), and so does its recording.

        Raises ModelCallError when a non-retryable error occurs, when retries are exhausted, or
        when the server's 200 answer is not a Messages response (not retried: a server that
        answers garbage once is assumed to keep doing so). Raises `cancel.Cancelled` when the
        run is cancelled before an attempt or during a wait between attempts.
        """
        with self._lock:
            send_temperature = request.model not in self._no_temperature
        try:
            response = self._complete(request, send_temperature)
        except ModelCallError as err:
            if not (send_temperature and err.status == 400 and "temperature" in str(err)):
                raise
            with self._lock:
                self._no_temperature.add(request.model)
            log.warning("model rejects a temperature; its requests go without one from now on "
                        "(not deterministic; responses are marked temperature_dropped)",
                        model=request.model, asked_temperature=request.temperature)
            response = self._complete(request, send_temperature=False)
            usage = response.usage.model_copy(update={"retries": response.usage.retries
                                                      + err.attempts})
            return response.model_copy(update={"usage": usage, "temperature_dropped": True})
        if not send_temperature:
            return response.model_copy(update={"temperature_dropped": True})
        return response

    def _complete(self, request: ModelRequest, send_temperature: bool) -> ModelResponse:
        attempts = Attempts(self.retry, self.timeout_s, is_retryable, self._wait_for,
                            self._log_retry)
        try:
            body = attempts.run(lambda timeout: self._send(request, send_temperature, timeout))
        except anthropic.APIError as err:
            raise self._failure(err, attempts.made) from None
        response = self._to_response(request, self._parse_json(body, attempts.made),
                                     attempts.made)
        log.debug("model call", model=request.model, attempts=attempts.made,
                  input_tokens=response.usage.input_tokens,
                  cache_read_input_tokens=response.usage.cache_read_input_tokens,
                  cache_creation_input_tokens=response.usage.cache_creation_input_tokens,
                  output_tokens=response.usage.output_tokens, stop_reason=response.stop_reason)
        return response

    # --- internals -------------------------------------------------------------------------
    def _send(self, request: ModelRequest, send_temperature: bool, timeout_s: float) -> str:
        """One attempt with `timeout_s`; returns the 200 body. SDK errors propagate to the retry
        loop; a cancelled run raises Cancelled before sending."""
        cancel.check()
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

    def _parse_json(self, body: str, attempts: int) -> object:
        try:
            return json.loads(body)
        except ValueError:
            preview = self._redact(body[:200])
            raise ModelCallError(f"server answered 200 with a body that is not JSON: {preview!r}",
                                 attempts=attempts, status=200) from None

    def _wait_for(self, err: BaseException, attempt_number: int) -> float:
        asked = retry_after_s(err)
        if asked is not None:
            return min(asked, self.retry.max_retry_after_s)
        return self.retry.backoff(attempt_number)

    def _log_retry(self, state: RetryCallState) -> None:
        err = state.outcome.exception() if state.outcome is not None else None
        log.warning(
            "model call failed; retrying",
            attempt=state.attempt_number,
            max_attempts=self.retry.max_attempts,
            wait_s=round(state.upcoming_sleep, 3),
            reason=self._describe(err) if err is not None else "unknown",
        )

    def _describe(self, err: BaseException) -> str:
        if isinstance(err, anthropic.APITimeoutError):
            return "timed out (client timeout or the case's wall budget)"
        if isinstance(err, anthropic.APIConnectionError):
            cause = err.__cause__
            return f"connection error: {cause or err.message}"
        if isinstance(err, anthropic.APIStatusError):
            kind = err.type or "error"
            detail = err.api_message or str(err.body)[:200]
            return self._redact(f"HTTP {err.status_code} {kind}: {detail}")
        return self._redact(f"{type(err).__name__}: {err}")

    def _failure(self, err: anthropic.APIError, attempts: int) -> ModelCallError:
        status = err.status_code if isinstance(err, anthropic.APIStatusError) else None
        return call_failure(self.base_url, attempts=attempts, status=status,
                            retryable=is_retryable(err), description=self._describe(err))

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

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[redacted]") if self._api_key else text
