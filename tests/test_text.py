"""Cutting long text around a marker: the one helper every stage uses."""

from __future__ import annotations

from judge_runner.text import CUT, OMITTED, cut


def test_default_keeps_half_head_half_tail_with_the_importer_marker() -> None:
    out, n = cut("H" * 5 + "middle" + "T" * 6, 11)
    assert (out, n) == ("HHHHH" + OMITTED.format(n=6) + "TTTTTT", 6)
    assert "\n[... 6 characters omitted ...]\n" in out


def test_head_sets_the_split_and_head_equal_to_limit_keeps_only_the_head() -> None:
    text = "abcdefghij"
    assert cut(text, 4, head=3, marker="|{n}|") == ("abc|6|j", 6)
    assert cut(text, 4, head=4, marker=CUT) == ("abcd\n[... 6 characters cut ...]\n", 6)
    assert cut(text, 0, marker="<{n}>") == ("<10>", 10)


def test_text_within_the_limit_is_unchanged() -> None:
    assert cut("exactly10!", 10) == ("exactly10!", 0)
    assert cut("", 0) == ("", 0)
