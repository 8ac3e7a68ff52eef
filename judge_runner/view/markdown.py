"""Markdown for instructions, skills and plans, rendered by markdown-it-py with raw HTML off.

The text is untrusted: raw HTML in it is shown escaped (the `js-default` preset has `html`
off), markdown-it refuses `javascript:`-style link targets, and images are not rendered at all,
since an image would make a page that must open offline fetch a remote URL.
"""

from __future__ import annotations

from functools import cache, lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("js-default").disable("image")


@lru_cache(maxsize=512)
def render_markdown(text: str) -> Markup:
    """HTML of `text`; safe to insert into a page as is. Cached: the same skill is shown on the
    page of every case that had it."""
    return Markup(_parser().render(text))  # markdown-it escaped the source
