"""Repair turns shared by the synthesizer and the scorer: send a problem back to the model."""

from __future__ import annotations

from typing import Any

from judge_runner.models import ModelRequest


def tool_call(content: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The first call of tool `name` in a response, or None."""
    return next((b for b in content if b.get("type") == "tool_use" and b.get("name") == name),
                None)


def follow_up(
    request: ModelRequest, assistant: list[dict[str, Any]], call: dict[str, Any] | None,
    feedback: str,
) -> ModelRequest:
    """The conversation so far plus `feedback`: as an error tool result answering `call` when
    the model made one (the API requires every tool_use to be answered), else as text."""
    if call is not None:
        reply: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": str(call.get("id")),
                                        "is_error": True, "content": feedback}]
    else:
        reply = [{"type": "text", "text": feedback}]
    messages = [*request.messages, {"role": "assistant", "content": assistant},
                {"role": "user", "content": reply}]
    return request.model_copy(update={"messages": messages})
