"""Model clients: the ModelClient Protocol, the anthropic-SDK client, recording/replay, prices.

    client = make_client(base_url=options.base_url, replay=options.replay)
    case_client = RecordingClient(client, case_dir / "transcript.jsonl")
    response = case_client.complete(ModelRequest(model=..., system=system_blocks([...]), ...))
"""

from judge_runner.models.accounting import RunUsage, run_usage, transcript_usage
from judge_runner.models.anthropic_client import AnthropicClient, ModelCallError
from judge_runner.models.base import ModelClient, ModelError, ModelRequest, ModelResponse, Usage
from judge_runner.models.caching import (
    cacheable_prefix,
    system_blocks,
    with_conversation_breakpoint,
)
from judge_runner.models.factory import make_client
from judge_runner.models.pricing import ModelPrice, PriceFileError, PriceTable, price_table
from judge_runner.models.recording import (
    TRANSCRIPT,
    RecordingClient,
    ReplayClient,
    ReplayError,
    ReplayMissError,
    TranscriptEntry,
    request_key,
)
from judge_runner.models.retry import RetryPolicy

__all__ = [
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
    "request_key",
    "run_usage",
    "system_blocks",
    "transcript_usage",
    "with_conversation_breakpoint",
]
