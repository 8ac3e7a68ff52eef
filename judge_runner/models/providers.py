"""Providers by model-name prefix: `anthropic:claude-sonnet-4-6`, `openai:gpt-5.2`,
`gemini:gemini-3.1-pro`. A name without a known prefix goes to the Anthropic Messages API, as
before. Each provider has its own wire, key and base URL:

- anthropic: Messages API, key ANTHROPIC_API_KEY, base URL ANTHROPIC_BASE_URL;
- openai: Chat Completions, key OPENAI_API_KEY, base URL OPENAI_BASE_URL (default OpenAI's);
- gemini: Chat Completions, key GEMINI_API_KEY, base URL GEMINI_BASE_URL (default Google's
  OpenAI-compatible endpoint).

The base URL of a provider is the first that is set of: its entry in the `base_urls` knob,
`--base-url`, its environment variable, its default.

vLLM and llama.cpp servers are `openai:` with their base URL (llama.cpp also answers
`anthropic:`). Local base URLs (127.0.0.1, localhost) need no key. The full name, prefix
included, is what requests, recordings and replay keys carry; the prefix is removed only on the
wire, and prices are looked up by the name without it.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse
from judge_runner.models.pricing import PriceTable
from judge_runner.models.retry import RetryPolicy


@dataclass(frozen=True)
class Provider:
    name: str
    wire: str  # "messages" | "chat"
    key_env: str
    base_url_env: str
    default_base_url: str


PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider("anthropic", "messages", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                          "https://api.anthropic.com"),
    "openai": Provider("openai", "chat", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                       "https://api.openai.com/v1"),
    "gemini": Provider("gemini", "chat", "GEMINI_API_KEY", "GEMINI_BASE_URL",
                       "https://generativelanguage.googleapis.com/v1beta/openai"),
}
DEFAULT_PROVIDER = "anthropic"


def split_model(model: str) -> tuple[Provider, str]:
    """(provider, model name on the wire) of a possibly prefixed model name.

    Raises ModelError for an empty name after a known prefix. A prefix that is not a provider
    name is part of the model name (local servers serve names such as `org:model`).
    """
    prefix, sep, rest = model.partition(":")
    if sep and prefix in PROVIDERS:
        if not rest:
            raise ModelError(f"model {model!r}: no model name after the {prefix}: prefix")
        return PROVIDERS[prefix], rest
    return PROVIDERS[DEFAULT_PROVIDER], model


class ProviderRouter:
    """A ModelClient that sends each request to its model's provider (one client each, made
    when first needed or by `prepare`). Thread-safe."""

    def __init__(self, *, base_url: str | None, base_urls: dict[str, str], timeout_s: float,
                 retry: RetryPolicy | None, prices: PriceTable) -> None:
        unknown = sorted(set(base_urls) - set(PROVIDERS))
        if unknown:
            raise ModelError(f"base_urls names unknown provider(s) {unknown}; known: "
                             f"{', '.join(PROVIDERS)}")
        self.base_url = base_url
        self.base_urls = dict(base_urls)
        self.timeout_s = timeout_s
        self.retry = retry
        self.prices = prices
        self._clients: dict[str, ModelClient] = {}
        self._lock = threading.Lock()

    def url_for(self, provider: Provider) -> str:
        return (self.base_urls.get(provider.name) or self.base_url
                or os.environ.get(provider.base_url_env) or provider.default_base_url)

    def prepare(self, models: list[str]) -> None:
        """Make the clients these models need now, so a missing key fails before judging."""
        for model in models:
            self._client(split_model(model)[0])

    def _client(self, provider: Provider) -> ModelClient:
        with self._lock:
            client = self._clients.get(provider.name)
            if client is None:
                client = self._make(provider)
                self._clients[provider.name] = client
            return client

    def _make(self, provider: Provider) -> ModelClient:
        url = self.url_for(provider)
        key = os.environ.get(provider.key_env, "").strip() or None
        if provider.wire == "messages":
            from judge_runner.models.anthropic_client import AnthropicClient

            return AnthropicClient(base_url=url, api_key=key, timeout_s=self.timeout_s,
                                   retry=self.retry, prices=self.prices)
        from judge_runner.models.openai_client import OpenAIClient

        return OpenAIClient(base_url=url, api_key=key, key_env=provider.key_env,
                            timeout_s=self.timeout_s, retry=self.retry, prices=self.prices)

    def complete(self, request: ModelRequest) -> ModelResponse:
        provider, wire_model = split_model(request.model)
        response = self._client(provider).complete(request.model_copy(update={"model":
                                                                               wire_model}))
        return response
