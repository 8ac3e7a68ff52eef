"""Small text helpers shared by the stages: cutting long text around a visible marker, and
finding a cited quote in its source, hashing text."""

from __future__ import annotations

import hashlib

OMITTED = "\n[... {n} characters omitted ...]\n"
"""The importer's marker; `cases.validate` looks for it in every step that reports a cut."""

CUT = "\n[... {n} characters cut ...]\n"
"""The marker of cuts made after import, so a reader can tell them from the importer's."""


def cut(text: str, limit: int, *, head: int | None = None,
        marker: str = OMITTED) -> tuple[str, int]:
    """Shorten `text` to `limit` characters plus a marker; return it and the number cut.

    The first `head` characters (default `limit // 2`) and the last `limit - head` are kept, with
    `marker` between them, its `{n}` filled with the number of characters removed; `head=limit`
    keeps the head only. Text within `limit` is returned unchanged with 0. Nothing is ever
    shortened without the marker saying so.
    """
    if len(text) <= limit:
        return text, 0
    kept_head = limit // 2 if head is None else head
    omitted = len(text) - limit
    tail = text[len(text) - (limit - kept_head):]
    return text[:kept_head] + marker.format(n=omitted) + tail, omitted


def collapse_ws(text: str) -> str:
    """`text` with every whitespace run as one space, trimmed: the form quotes are compared in."""
    return " ".join(text.split())


def quote_found(quote: str, source: str) -> bool:
    """Whether `quote` occurs in `source`, whitespace runs compared as one space (markdown and
    terminals wrap lines freely). A quote with no visible character is never found."""
    needle = collapse_ws(quote)
    return bool(needle) and needle in collapse_ws(source)


def sha256_text(text: str) -> str:
    """Hex sha256 of `text` as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
