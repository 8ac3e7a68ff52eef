"""A ModelClient for OpenAI-compatible Chat Completions servers, through the `openai` SDK.

Covers OpenAI, Gemini's OpenAI-compatible endpoint, vLLM and llama.cpp's llama-server. Requests
and responses keep the package's Messages-API shapes (see `base.py`); this module converts them
on the way out and back, so judges, recording, replay, pricing and usage accounting do not
know which wire was used:

- system blocks become one system message; `tool_use` blocks become `tool_calls` (arguments as
  a JSON string); each `tool_result` becomes a `tool` message with its `tool_call_id`;
- tools become `function` tools; a tool_choice naming the only tool offered becomes
  `"required"` (the same constraint, and the form every compatible server accepts), one naming
  a tool among several the named-function form, `any` becomes `"required"`;
- the answer's `tool_calls` come back as `tool_use` blocks; arguments that are not a JSON object
  come back as `{"_unparsed_arguments": "<text>"}`, which no tool schema accepts, so the judge
  reports malformed tool input instead of guessing;
- `finish_reason` maps to a stop_reason (`tool_calls` → tool_use, `stop` → end_turn,
  `length` → max_tokens); usage maps `prompt_tokens` minus `cached_tokens` to input_tokens and
  `cached_tokens` to cache_read_input_tokens (these APIs bill no cache writes).

Retries, the per-attempt timeout cut to the case's wall deadline, the temperature fallback and
key scrubbing are `WireClient`'s, as for `AnthropicClient`; the SDK's own retries are off.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlparse

import openai
from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.log import get_logger
from judge_runner.models.base import ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.models.pricing import PriceTable
from judge_runner.models.retry import RETRYABLE_STATUS, RetryPolicy, parse_retry_after
from judge_runner.models.wire import (
    LOCAL_DUMMY_KEY,
    ModelCallError,
    WireClient,
    is_local,
    malformed_answer,
    safe_url,
)

log = get_logger(__name__)

_FINISH = {"tool_calls": "tool_use", "function_call": "tool_use", "stop": "end_turn",
           "length": "max_tokens", "content_filter": "refusal"}


def is_retryable(err: BaseException) -> bool:
    if isinstance(err, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(err, openai.APIStatusError) and err.status_code in RETRYABLE_STATUS


def chat_base_url(base_url: str) -> str:
    """A server root as the SDK wants it: `http://host:port` gets `/v1` (llama.cpp, vLLM serve
    the API there); a URL with a path is kept as given (OpenAI's, Gemini's `/v1beta/openai`)."""
    parts = urlparse(base_url)
    if parts.path in ("", "/"):
        return base_url.rstrip("/") + "/v1"
    return base_url.rstrip("/")


class _WireUsage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_details: dict[str, Any] | None = None


class _WireChoice(BaseModel):
    model_config = ConfigDict(extra="ignore")

    message: dict[str, Any]
    finish_reason: str | None = None


class _WireCompletion(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    model: str | None = None
    choices: list[_WireChoice]
    usage: _WireUsage


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def to_chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's system blocks and messages as Chat Completions messages."""
    out: list[dict[str, Any]] = []
    system = "\n\n".join(str(b.get("text", "")) for b in request.system if b.get("text"))
    if system:
        out.append({"role": "system", "content": system})
    for message in request.messages:
        role, content = message.get("role"), message.get("content")
        if isinstance(content, str):
            out.append({"role": role, "content": content})
            continue
        blocks = [b for b in content or [] if isinstance(b, dict)]
        if role == "assistant":
            calls = [{"id": str(b.get("id")), "type": "function",
                      "function": {"name": str(b.get("name")),
                                   "arguments": json.dumps(b.get("input", {}),
                                                           ensure_ascii=False)}}
                     for b in blocks if b.get("type") == "tool_use"]
            entry: dict[str, Any] = {"role": "assistant", "content": _text_of(blocks) or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
            continue
        for b in blocks:
            if b.get("type") == "tool_result":
                out.append({"role": "tool", "tool_call_id": str(b.get("tool_use_id")),
                            "content": _text_of(b.get("content"))})
        text = _text_of(blocks)
        if text:
            out.append({"role": str(role), "content": text})
    return out


def to_chat_tools(request: ModelRequest) -> tuple[list[dict[str, Any]], Any]:
    """(tools, tool_choice) in Chat Completions form; tool_choice None = server default."""
    tools = [{"type": "function",
              "function": {"name": t["name"], "description": t.get("description", ""),
                           "parameters": t.get("input_schema", {"type": "object"})}}
             for t in request.tools]
    choice = request.tool_choice
    if choice is None:
        return tools, None
    kind = choice.get("type")
    if kind == "tool":
        if len(tools) == 1:
            return tools, "required"
        return tools, {"type": "function", "function": {"name": choice.get("name")}}
    if kind == "any":
        return tools, "required"
    return tools, str(kind or "auto")


def from_chat_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    """An answer's message as Messages-API content blocks (text first, then tool calls)."""
    blocks: list[dict[str, Any]] = []
    text = message.get("content")
    if isinstance(text, str) and text:
        blocks.append({"type": "text", "text": text})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        raw = function.get("arguments")
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = None
        if not isinstance(args, dict):
            args = {"_unparsed_arguments": raw if isinstance(raw, str) else json.dumps(raw)}
        blocks.append({"type": "tool_use", "id": str(call.get("id") or ""),
                       "name": str(function.get("name") or ""), "input": args})
    return blocks


class OpenAIClient(WireClient):
    """ModelClient over `openai.OpenAI` (Chat Completions). Thread-safe.

    base_url: API root (`http://127.0.0.1:PORT` gets `/v1`); api_key: the provider's key (a
    dummy for a local base_url when None); model names are sent as given (a provider prefix is
    removed by the routing client before this one sees the request).
    timeout_s, retry, prices: as for AnthropicClient.
    """

    _api_error = openai.APIError
    _timeout_error = openai.APITimeoutError
    _connection_error = openai.APIConnectionError

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 300.0,
        retry: RetryPolicy | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        root = chat_base_url(base_url)
        if not api_key:
            if not is_local(root):
                raise ModelError(f"{key_env} is not set; it is needed to call "
                                 f"{safe_url(root)} (local servers need no key)")
            api_key = LOCAL_DUMMY_KEY
        super().__init__(base_url=root, api_key=api_key, timeout_s=timeout_s, retry=retry,
                         prices=prices)
        self._sdk = openai.OpenAI(api_key=api_key, base_url=root, max_retries=0,
                                  timeout=timeout_s)

    # --- the Chat Completions wire -------------------------------------------------------
    def _send(self, request: ModelRequest, send_temperature: bool, timeout_s: float) -> str:
        tools, tool_choice = to_chat_tools(request)
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": to_chat_messages(request),
            "max_completion_tokens": request.max_tokens,
            "timeout": timeout_s,
        }
        if send_temperature:
            kwargs["temperature"] = request.temperature
        if tools:
            kwargs["tools"] = tools
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return str(self._sdk.chat.completions.with_raw_response.create(**kwargs).text)

    def _is_retryable(self, err: BaseException) -> bool:
        return is_retryable(err)

    def _retry_after(self, err: BaseException) -> float | None:
        if isinstance(err, openai.APIStatusError):
            return parse_retry_after(err.response.headers)
        return None

    def _status_detail(self, err: BaseException) -> str:
        body = err.body if isinstance(err, openai.APIStatusError) else None
        message = body.get("message") if isinstance(body, dict) else None
        return f"error: {message or str(body)[:200]}"

    def _to_response(self, request: ModelRequest, data: object, attempts: int) -> ModelResponse:
        try:
            wire = _WireCompletion.model_validate(data)
        except ValidationError as err:
            raise malformed_answer(err, expected="a chat completion", attempts=attempts) from None
        if not wire.choices:
            raise ModelCallError("server answered a chat completion without choices",
                                 attempts=attempts, status=200)
        choice = wire.choices[0]
        details = wire.usage.prompt_tokens_details or {}
        cached = int(details.get("cached_tokens") or 0)
        uncached = max(wire.usage.prompt_tokens - cached, 0)
        output = wire.usage.completion_tokens
        cost = self.prices.cost(wire.model or request.model, input_tokens=uncached,
                                cache_creation_input_tokens=0, cache_read_input_tokens=cached,
                                output_tokens=output)
        return ModelResponse(
            id=wire.id,
            content=from_chat_message(choice.message),
            stop_reason=_FINISH.get(choice.finish_reason or "", choice.finish_reason),
            usage=Usage(input_tokens=uncached, cache_read_input_tokens=cached,
                        output_tokens=output, cost_usd=cost, calls=1, retries=attempts - 1),
        )


def env_key(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None
