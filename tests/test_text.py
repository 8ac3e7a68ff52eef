"""Text helpers every stage shares: cutting long text around a marker, matching cited quotes."""

from __future__ import annotations

import hashlib

from judge_runner.text import CUT, OMITTED, collapse_ws, cut, quote_found, sha256_text


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


def test_quotes_match_across_whitespace_runs_and_blank_quotes_never_match() -> None:
    source = "The report must list\n   every   station\tby name."
    assert quote_found("list every station", source)
    assert quote_found("  must  list\n", source)
    assert not quote_found("list every stations", source)
    assert not quote_found(" \n\t", source) and not quote_found("", source)
    assert collapse_ws("  a \n\t b  ") == "a b"


def test_sha256_text_hashes_the_utf8_bytes() -> None:
    assert sha256_text("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert sha256_text("\u00e9") == hashlib.sha256(b"\xc3\xa9").hexdigest()
