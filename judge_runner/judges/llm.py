"""What model-backed judges share: their options, and building their ModelClient and Sandbox.

Model judges take two factories so that every case gets its own recorded client (recordings
live in the case's output folder, which makes `--replay RUN_DIR` possible) and its own sandbox.

Knobs of `ModelJudgeSettings` (all optional, `-o KEY=VALUE` on the command line):

    timeout_s        per-attempt model timeout in seconds (default 300)
    retry            dict of RetryPolicy fields (max_attempts, initial_wait_s, max_wait_s, ...)
    base_urls        dict provider -> base URL (e.g. {"openai": "http://127.0.0.1:8000"}),
                     for providers that should not use --base-url (see models/providers.py)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import Field

from judge_runner.cases import CasePackage
from judge_runner.judges.registry import JudgeConfigError as JudgeConfigError
from judge_runner.judges.registry import JudgeSettings
from judge_runner.models import ModelClient, RetryPolicy
from judge_runner.sandbox import Sandbox, SandboxKind


class ClientFactory(Protocol):
    def __call__(self, out_dir: Path) -> ModelClient:
        """A client for one case; recordings (if any) go into `out_dir`."""
        ...


SandboxFactory = Callable[[CasePackage], Sandbox]


class ModelJudgeSettings(JudgeSettings):
    """Options of every judge that calls a model; the model itself is checked by the judge
    (`require_model`), which names the judge in its message."""

    model: str | None = None
    base_url: str | None = None
    replay: Path | None = None
    timeout_s: float = Field(default=300.0, gt=0)
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    base_urls: dict[str, str] = Field(default_factory=dict)


def require_model(settings: ModelJudgeSettings, judge: str) -> str:
    if not settings.model:
        raise JudgeConfigError(f"the {judge} judge needs a model (--model)")
    return settings.model


def client_factory(settings: ModelJudgeSettings, models: Sequence[str] = ()) -> ClientFactory:
    """Live calls through the anthropic SDK, or, with `options.replay`, answers read back from the
    transcripts of that run (no network). Either way each case's calls are recorded into its
    output folder's transcript.jsonl.

    `models`: every model the judge will call besides `settings.model` (a panel's members).
    Raises ModelError when no API key is available for a non-local server or the replay
    directory holds no transcripts.
    """
    from judge_runner.models import TRANSCRIPT, RecordingClient, make_client

    called = [m for m in [settings.model, *models] if m]
    shared = make_client(
        base_url=settings.base_url,
        replay=settings.replay,
        timeout_s=settings.timeout_s,
        retry=settings.retry,
        models=called or None,
        base_urls=settings.base_urls,
    )

    def make(out_dir: Path) -> ModelClient:
        return RecordingClient(shared, out_dir / TRANSCRIPT)

    return make


def sandbox_factory(kind: SandboxKind) -> SandboxFactory:
    """Open a sandbox of `kind` (AUTO resolved per case) for each case."""

    def make(case: CasePackage) -> Sandbox:
        from judge_runner.sandbox import open_sandbox

        return open_sandbox(kind, case)

    return make
