"""Prompt caching: mark the constant prefix of every request as cacheable.

The API caches a prompt prefix up to a block carrying `cache_control`, in the order tools →
system → messages. Judges send the same tools, system prompt, JudgeSkill and references for every
case of a run, so that part goes first and its last block gets the breakpoint; the case-specific
overview follows uncached. The cache only hits when the prefix is identical byte for byte,
hence `cacheable_prefix` for tests and checks. (Prefixes shorter than the model's minimum,
about 1-2k tokens, are simply not cached by the API; nothing fails.)
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from judge_runner.models.base import ModelRequest

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}


def system_blocks(prefix: Sequence[str], variable: Sequence[str] = ()) -> list[dict[str, Any]]:
    """System text blocks: `prefix` (constant across cases, cached) then `variable` (per case).

    Raises ValueError for an empty text, which the API rejects.
    """
    for where, texts in (("prefix", prefix), ("variable", variable)):
        empty = [i for i, t in enumerate(texts) if not t.strip()]
        if empty:
            raise ValueError(f"system {where} block(s) {empty} are empty; the API rejects them")
    blocks: list[dict[str, Any]] = [{"type": "text", "text": t} for t in prefix]
    if blocks:
        blocks[-1]["cache_control"] = dict(EPHEMERAL)
    blocks += [{"type": "text", "text": t} for t in variable]
    return blocks


def with_conversation_breakpoint(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of `messages` whose last content block is cacheable.

    For multi-turn loops: each turn resends the whole conversation, so caching up to the newest
    turn makes the next call read it from cache. Only the copy is marked, so older turns never
    accumulate breakpoints (the API allows four per request).
    """
    marked = copy.deepcopy(messages)
    if not marked:
        return marked
    last = marked[-1]
    content = last.get("content")
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(EPHEMERAL)
    return marked


def cacheable_prefix(request: ModelRequest) -> bytes:
    """Canonical bytes of tools + system blocks up to the last system breakpoint.

    Empty when no system block is marked. Two requests whose prefixes are equal here share one
    cache entry.
    """
    marked = [i for i, block in enumerate(request.system) if block.get("cache_control")]
    if not marked:
        return b""
    prefix = {"tools": request.tools, "system": request.system[: marked[-1] + 1]}
    return json.dumps(prefix, sort_keys=True, separators=(",", ":")).encode()
