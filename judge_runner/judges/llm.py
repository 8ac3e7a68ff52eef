"""What model-backed judges share: building their ModelClient and Sandbox from JudgeOptions.

Model judges take two factories so that every case gets its own recorded client (recordings
live in the case's output folder, which makes `--replay RUN_DIR` possible) and its own sandbox.

Knobs read from `JudgeOptions.extra` (all optional):

    timeout_s        per-attempt model timeout in seconds (default 300)
    retry            dict of RetryPolicy fields (max_attempts, initial_wait_s, max_wait_s, ...)
    base_urls        dict provider -> base URL (e.g. {"openai": "http://127.0.0.1:8000"}),
                     for providers that should not use --base-url (see models/providers.py)
    max_tokens       max output tokens per model call (default 4096)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from judge_runner.cases import CasePackage
from judge_runner.judges.registry import JudgeOptions
from judge_runner.models import ModelClient
from judge_runner.sandbox import Sandbox


class ClientFactory(Protocol):
    def __call__(self, out_dir: Path) -> ModelClient:
        """A client for one case; recordings (if any) go into `out_dir`."""
        ...


SandboxFactory = Callable[[CasePackage], Sandbox]


class JudgeConfigError(ValueError):
    """The options cannot build this judge (e.g. no model given)."""


CLIENT_KNOBS = frozenset({"timeout_s", "retry", "base_urls"})


def check_knobs(options: JudgeOptions, judge: str, knobs: set[str] | frozenset[str],
                *, model_client: bool = True) -> None:
    """Raise JudgeConfigError for an `extra` key this judge does not know (likely a typo).

    The model client's knobs (CLIENT_KNOBS) are known to every judge that has a `model_client`.
    """
    allowed = set(knobs) | (CLIENT_KNOBS if model_client else set())
    unknown = sorted(set(options.extra) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise JudgeConfigError(f"unknown option(s) for the {judge} judge: {unknown}; "
                               f"known: {known}")


def require_model(options: JudgeOptions, judge: str) -> str:
    if not options.model:
        raise JudgeConfigError(f"the {judge} judge needs a model (--model)")
    return options.model


def extra_int(options: JudgeOptions, key: str, default: int) -> int:
    value = options.extra.get(key, default)
    if not isinstance(value, int) or value <= 0:
        raise JudgeConfigError(f"option {key!r} must be a positive integer, got {value!r}")
    return value


def extra_float(options: JudgeOptions, key: str, default: float) -> float:
    value = options.extra.get(key, default)
    if not isinstance(value, int | float) or value <= 0:
        raise JudgeConfigError(f"option {key!r} must be a positive number, got {value!r}")
    return float(value)


def client_factory(options: JudgeOptions) -> ClientFactory:
    """Live calls through the anthropic SDK, or, with `options.replay`, answers read back from the
    transcripts of that run (no network). Either way each case's calls are recorded into its
    output folder's transcript.jsonl.

    Raises JudgeConfigError for bad knobs, ModelError when no API key is available for a
    non-local server or the replay directory holds no transcripts.
    """
    from judge_runner.models import TRANSCRIPT, RecordingClient, RetryPolicy, make_client

    retry = options.extra.get("retry", {})
    if not isinstance(retry, dict):
        raise JudgeConfigError(f"option 'retry' must be a table of RetryPolicy fields: {retry!r}")
    base_urls = options.extra.get("base_urls", {})
    if not isinstance(base_urls, dict) or not all(isinstance(v, str) for v in base_urls.values()):
        raise JudgeConfigError(f"option 'base_urls' must map provider names to URLs: "
                               f"{base_urls!r}")
    models = [m for m in [options.model, *options.models] if m]
    shared = make_client(
        base_url=options.base_url,
        replay=options.replay,
        timeout_s=extra_float(options, "timeout_s", 300.0),
        retry=RetryPolicy(**retry),
        models=models or None,
        base_urls=base_urls,
    )

    def make(out_dir: Path) -> ModelClient:
        return RecordingClient(shared, out_dir / TRANSCRIPT)

    return make


def sandbox_factory(options: JudgeOptions) -> SandboxFactory:
    """Open the sandbox kind chosen by `options.sandbox` (docker | local | auto) for a case."""

    def make(case: CasePackage) -> Sandbox:
        from judge_runner.sandbox import open_sandbox

        return open_sandbox(options.sandbox, case)

    return make
