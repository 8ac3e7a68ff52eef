"""Model clients: the ModelClient Protocol, the anthropic-SDK client, recording/replay, prices.

    client = make_client(base_url=options.base_url, replay=options.replay)
    case_client = RecordingClient(client, case_dir / "transcript.jsonl")
    response = case_client.complete(ModelRequest(model=..., system=system_blocks([...]), ...))
"""

from typing import TYPE_CHECKING, Any

from judge_runner.models.accounting import RunUsage, run_usage, transcript_usage
from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.models.caching import (
    cacheable_prefix,
    system_blocks,
    with_conversation_breakpoint,
)
from judge_runner.models.pricing import ModelPrice, PriceFileError, PriceTable, price_table
from judge_runner.models.recording import (
    TRANSCRIPT,
    RecordingClient,
    ReplayClient,
    ReplayError,
    ReplayMissError,
    TranscriptEntry,
    read_transcript,
    request_key,
)

if TYPE_CHECKING:
    from judge_runner.models.anthropic_client import AnthropicClient, ModelCallError
    from judge_runner.models.factory import make_client
    from judge_runner.models.providers import PROVIDERS, Provider, split_model
    from judge_runner.models.retry import RetryPolicy

# The anthropic SDK takes most of a second to import; load it only when a client is needed,
# so that reading cases, rules judging and the CLI's start stay fast.
_LAZY = {
    "AnthropicClient": "judge_runner.models.anthropic_client",
    "ModelCallError": "judge_runner.models.anthropic_client",
    "make_client": "judge_runner.models.factory",
    "RetryPolicy": "judge_runner.models.retry",
    "PROVIDERS": "judge_runner.models.providers",
    "Provider": "judge_runner.models.providers",
    "split_model": "judge_runner.models.providers",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "PROVIDERS",
    "TRANSCRIPT",
    "AnthropicClient",
    "ModelCallError",
    "ModelClient",
    "ModelError",
    "ModelPrice",
    "ModelRequest",
    "ModelResponse",
    "PriceFileError",
    "PriceTable",
    "Provider",
    "RecordingClient",
    "ReplayClient",
    "ReplayError",
    "ReplayMissError",
    "RetryPolicy",
    "RunUsage",
    "TranscriptEntry",
    "Usage",
    "cacheable_prefix",
    "make_client",
    "price_table",
    "read_transcript",
    "request_key",
    "run_usage",
    "split_model",
    "system_blocks",
    "transcript_usage",
    "with_conversation_breakpoint",
]
