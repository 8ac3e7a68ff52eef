from __future__ import annotations

from judge_runner.view.spans import Span, locate, marked


def test_locate_matches_whitespace_runs_like_the_quote_check() -> None:
    text = "collected 4 items\n3 passed,\n   1 failed in 0.2s"
    start, end = locate("3 passed, 1 failed", text) or (0, 0)
    assert text[start:end] == "3 passed,\n   1 failed"
    assert locate("   ", text) is None
    assert locate("4 passed", text) is None


def test_marked_escapes_everything_and_wraps_the_span() -> None:
    text = "<script>alert(1)</script> result: 2 failed"
    start, end = locate("2 failed", text) or (0, 0)
    html = str(marked(text, [Span(start, end, "q-1")]))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.endswith('<mark id="q-1" class="quote">2 failed</mark>')


def test_an_overlapping_span_keeps_an_anchor_for_its_id() -> None:
    html = str(marked("abcdef", [Span(0, 4, "q-1"), Span(2, 6, "q-2")]))
    assert '<mark id="q-1" class="quote">abcd</mark>' in html
    assert 'id="q-2"' in html


def test_cut_markers_are_flagged() -> None:
    text = "head\n[... 5000 characters omitted ...]\ntail [... 12 characters cut ...]"
    html = str(marked(text))
    assert html.count('<span class="cut">') == 2
    assert "[... 5000 characters omitted ...]</span>" in html
