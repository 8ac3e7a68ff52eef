"""Prompt caching: the constant prefix is marked and identical across cases."""

from __future__ import annotations

from typing import Any

import pytest

from judge_runner.models import (
    ModelRequest,
    cacheable_prefix,
    make_client,
    system_blocks,
    with_conversation_breakpoint,
)
from tests.fakeapi import FakeMessagesServer, cacheable_prefix_bytes, reply, text
from tests.models.conftest import FAST

TOOLS = [{"name": "bash", "description": "run a command",
          "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}}}]
PREFIX = ["You judge agent runs.", "JudgeSkill v1 ...", "reference: artifact failures ..."]


def case_request(case: str) -> ModelRequest:
    return ModelRequest(model="judge-model", tools=TOOLS,
                        system=system_blocks(PREFIX, [f"instruction of {case}"]),
                        messages=[{"role": "user", "content": f"judge {case}"}])


def test_only_the_last_prefix_block_carries_the_breakpoint() -> None:
    blocks = system_blocks(PREFIX, ["per case"])

    marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
    assert marked == [len(PREFIX) - 1]
    assert blocks[marked[0]]["cache_control"] == {"type": "ephemeral"}
    assert [b["text"] for b in blocks] == [*PREFIX, "per case"]


def test_empty_blocks_are_refused() -> None:
    with pytest.raises(ValueError, match=r"prefix block\(s\) \[1\]"):
        system_blocks(["a", "  "])


def test_prefix_sent_is_byte_identical_across_cases_and_cached(
        fake_api: FakeMessagesServer) -> None:
    fake_api.responder = lambda _: reply(text("ok"))
    client = make_client(base_url=fake_api.base_url, retry=FAST)

    usages = [client.complete(case_request(case)).usage for case in ["c1", "c2", "c3"]]

    # What the server received, cut by an implementation independent of the package's.
    prefixes = {cacheable_prefix_bytes(body) for body in fake_api.bodies}
    assert len(prefixes) == 1 and prefixes != {b""}
    assert cacheable_prefix(case_request("c1")) == cacheable_prefix(case_request("c9"))
    assert cacheable_prefix(case_request("c1")) == prefixes.pop()
    # The fake server's cache simulation: written once, read by the later cases.
    assert usages[0].cache_creation_input_tokens > 0 and usages[0].cache_read_input_tokens == 0
    assert all(u.cache_read_input_tokens == usages[0].cache_creation_input_tokens
               and u.cache_creation_input_tokens == 0 for u in usages[1:])


def test_case_text_outside_the_prefix() -> None:
    assert b"instruction of" not in cacheable_prefix(case_request("c1"))
    unmarked = ModelRequest(model="m", system=[{"type": "text", "text": "x"}], messages=[])
    assert cacheable_prefix(unmarked) == b""


def test_conversation_breakpoint_marks_only_a_copy_of_the_last_turn() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "start"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "out"}]},
    ]
    marked = with_conversation_breakpoint(messages)

    assert marked[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[-1]["content"][-1]  # caller's list untouched
    again = with_conversation_breakpoint([*messages, {"role": "user", "content": "more"}])
    assert again[-1]["content"] == [{"type": "text", "text": "more",
                                     "cache_control": {"type": "ephemeral"}}]
    assert sum("cache_control" in str(m) for m in again) == 1
