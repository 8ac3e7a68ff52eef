"""An ATIF trajectory (Harbor's `agent/trajectory.json`) from an agent judge transcript.

The agent judge records every model call in `transcript.jsonl` (request, response, usage). The
last recorded request holds the whole conversation up to the last answer, so the trajectory is:
one system step (the system prompt), then the conversation in order — user text as user steps,
each model answer as an agent step with its tool calls, its token metrics and, as observation,
the tool results sent back in the following user turn.

Returns plain JSON (a dict) so this module needs no Harbor import; JudgeAgent validates it with
Harbor's own pydantic models before writing it. A transcript without a single answered call
gives None (there is nothing to show).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge_runner.core import Usage
from judge_runner.models import ModelRequest, ModelResponse, TranscriptEntry, read_transcript

ATIF_VERSION = "ATIF-v1.6"


def read_calls(transcript: Path) -> list[TranscriptEntry]:
    """The answered model calls of a transcript, in order (none when it does not exist)."""
    if not transcript.is_file():
        return []
    entries, _ = read_transcript(transcript)
    return [e for e in entries if e.response is not None]


def prompt_tokens(usage: Usage) -> int:
    """Input tokens including cached ones (Harbor's and ATIF's convention)."""
    return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens


def build_trajectory(
    calls: list[TranscriptEntry], agent_name: str, agent_version: str, session_id: str | None
) -> dict[str, Any] | None:
    if not calls:
        return None
    last_request = calls[-1].request
    responses = [c.response for c in calls if c.response is not None]
    steps: list[dict[str, Any]] = [
        {"source": "system", "message": _system_text(last_request)},
    ]
    conversation = [*last_request.messages,
                    {"role": "assistant", "content": responses[-1].content}]
    answers = iter(responses)
    for message in conversation:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if message["role"] == "assistant":
            steps.append(_agent_step(blocks, next(answers, None), last_request.model))
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results and steps[-1]["source"] == "agent":
            steps[-1]["observation"] = {"results": [_observation(b) for b in results]}
        text = _text(blocks)
        if text:
            steps.append({"source": "user", "message": text})
    for number, step in enumerate(steps, start=1):
        step["step_id"] = number
    total = sum((r.usage for r in responses), Usage())
    return {
        "schema_version": ATIF_VERSION,
        "session_id": session_id,
        "agent": {"name": agent_name, "version": agent_version, "model_name": last_request.model,
                  "tool_definitions": last_request.tools},
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": prompt_tokens(total),
            "total_completion_tokens": total.output_tokens,
            "total_cached_tokens": total.cache_read_input_tokens,
            "total_cost_usd": round(total.cost_usd, 8),
            "total_steps": len(steps),
        },
    }


def _system_text(request: ModelRequest) -> str:
    return "\n\n".join(b.get("text", "") for b in request.system if b.get("type") == "text")


def _text(blocks: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def _agent_step(
    blocks: list[dict[str, Any]], response: ModelResponse | None, model: str
) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "model_name": model, "message": _text(blocks)}
    calls = [b for b in blocks if b.get("type") == "tool_use"]
    if calls:
        step["tool_calls"] = [{"tool_call_id": b["id"], "function_name": b["name"],
                               "arguments": b.get("input") or {}} for b in calls]
    if response is not None:
        usage = response.usage
        step["metrics"] = {"prompt_tokens": prompt_tokens(usage),
                           "completion_tokens": usage.output_tokens,
                           "cached_tokens": usage.cache_read_input_tokens,
                           "cost_usd": round(usage.cost_usd, 8)}
    return step


def _observation(block: dict[str, Any]) -> dict[str, Any]:
    content = block.get("content")
    if isinstance(content, list):
        content = _text(content)
    return {"source_call_id": block.get("tool_use_id"), "content": str(content or "")}
