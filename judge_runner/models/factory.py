"""`make_client`: the one place judges get a ModelClient from their options."""

from __future__ import annotations

from pathlib import Path

from judge_runner.models.base import ModelClient
from judge_runner.models.pricing import price_table
from judge_runner.models.providers import ProviderRouter
from judge_runner.models.recording import ReplayClient
from judge_runner.models.retry import RetryPolicy


def make_client(
    *,
    base_url: str | None = None,
    replay: Path | None = None,
    timeout_s: float = 300.0,
    retry: RetryPolicy | None = None,
    prices_file: Path | None = None,
    models: list[str] | None = None,
    base_urls: dict[str, str] | None = None,
) -> ModelClient:
    """A ReplayClient over `replay` when given (no network, no key), else a ProviderRouter that
    sends each model to its provider (see `providers.py`: `openai:`, `gemini:`, `anthropic:`
    prefixes; a bare name is Anthropic's Messages API).

    base_url: server root for every provider without its own entry in `base_urls`.
    timeout_s / retry: per-attempt timeout and retry bounds (see RetryPolicy); the case's wall
    deadline (`deadline.until`) cuts both.
    prices_file: extra price table (TOML/JSON) over the bundled one.
    models: the model names that will be used; their providers' clients are made now, so a
    missing key is reported before any case is judged.
    Wrap the result in `RecordingClient(client, case_dir / "transcript.jsonl")` per case.

    Raises ModelError when no API key is available for a non-local server, ReplayError when
    `replay` holds no transcripts, PriceFileError for an unreadable price file.
    """
    if replay is not None:
        return ReplayClient(replay)
    router = ProviderRouter(base_url=base_url, base_urls=base_urls or {}, timeout_s=timeout_s,
                            retry=retry, prices=price_table(prices_file))
    router.prepare(models or ["anthropic:default"])
    return router
