"""Finding a cited quote in its source text and rendering that text, escaped, with the quote marked.

Quotes are located the way the agent judge verifies them (`judge_runner.text.quote_found`):
whitespace runs compare as one space, so a quote wrapped differently from the output still
lands on the right characters. Cut markers (the importer's `[... N characters omitted ...]`,
later cuts' `[... N characters cut ...]`) are wrapped too, so a reader sees where text is missing.

Everything that reaches the page goes through `markupsafe.escape`: trajectories, outputs and
artifacts are untrusted input, and a `<script>` in them must show as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

CUT_MARKER = re.compile(r"\[\.\.\. \d+ characters (?:omitted|cut)[^\]\n]*\]")


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of a text, shown as `<mark id=anchor class=...>`."""

    start: int
    end: int
    anchor: str
    classes: str = "quote"


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where `quote` occurs in `text` (whitespace runs matching any whitespace run), or None."""
    words = quote.split()
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return (match.start(), match.end()) if match else None


def cut_markers(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in CUT_MARKER.finditer(text)]


def has_cut(text: str | None) -> bool:
    return bool(text) and CUT_MARKER.search(text or "") is not None


def marked(text: str, spans: Sequence[Span] = ()) -> Markup:
    """`text` escaped, each span wrapped in a `<mark>` carrying its id, cut markers flagged.

    A span that overlaps an earlier one keeps its id on an empty anchor right after that mark,
    so every citation still has an element to land on; a cut marker inside a quote is left
    unflagged.
    """
    events: list[tuple[int, int, Span | None]] = [(s.start, s.end, s) for s in spans]
    events += [(a, b, None) for a, b in cut_markers(text)]
    events.sort(key=lambda e: (e[0], e[2] is None, -e[1]))
    out: list[str] = []
    pos = 0
    for start, end, span in events:
        if start < pos:
            if span is not None:  # overlaps the previous mark
                out.append(f'<span class="anchor" id="{escape(span.anchor)}"></span>')
            continue
        out.append(str(escape(text[pos:start])))
        piece = escape(text[start:end])
        if span is None:
            out.append(f'<span class="cut">{piece}</span>')
        else:
            out.append(f'<mark id="{escape(span.anchor)}" class="{escape(span.classes)}">'
                       f"{piece}</mark>")
        pos = end
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))
