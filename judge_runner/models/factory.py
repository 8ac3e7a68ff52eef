"""`make_client`: the one place judges get a ModelClient from their options."""

from __future__ import annotations

from pathlib import Path

from judge_runner.models.anthropic_client import AnthropicClient
from judge_runner.models.base import ModelClient
from judge_runner.models.pricing import price_table
from judge_runner.models.recording import ReplayClient
from judge_runner.models.retry import RetryPolicy


def make_client(
    *,
    base_url: str | None = None,
    replay: Path | None = None,
    timeout_s: float = 300.0,
    retry: RetryPolicy | None = None,
    prices_file: Path | None = None,
) -> ModelClient:
    """A ReplayClient over `replay` when given (no network, no key), else an AnthropicClient.

    base_url: Messages API root (default $ANTHROPIC_BASE_URL, else Anthropic's).
    timeout_s / retry: per-attempt timeout and retry bounds (see RetryPolicy).
    prices_file: extra price table (TOML/JSON) over the bundled one.
    Wrap the result in `RecordingClient(client, case_dir / "transcript.jsonl")` per case.

    Raises ModelError when no API key is available for a non-local server, ReplayError when
    `replay` holds no transcripts, PriceFileError for an unreadable price file.
    """
    if replay is not None:
        return ReplayClient(replay)
    return AnthropicClient(base_url=base_url, timeout_s=timeout_s, retry=retry,
                           prices=price_table(prices_file))
