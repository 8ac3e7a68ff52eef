"""JSON Lines reading and writing shared by every stage."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from judge_runner.jsonl import numbered_lines, read_dicts, read_models, write_models


class Row(BaseModel):
    text: str


def test_round_trip_keeps_unicode_line_separators_inside_a_record(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    rows = [Row(text="a\u2028b\x85c\u2029d"), Row(text="plain")]
    write_models(path, rows)
    assert read_models(path, Row) == rows
    assert [r["text"] for r in read_dicts(path)] == ["a\u2028b\x85c\u2029d", "plain"]


def test_blank_lines_are_skipped_and_numbers_are_those_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('\n{"text": "x"}\r\n   \n{"text": "y"}\n', encoding="utf-8")
    assert [n for n, _ in numbered_lines(path)] == [2, 4]
    assert [r.text for r in read_models(path, Row)] == ["x", "y"]


def test_missing_file_is_empty_only_when_allowed(tmp_path: Path) -> None:
    assert read_models(tmp_path / "absent.jsonl", Row, missing_ok=True) == []
    with pytest.raises(FileNotFoundError):
        read_models(tmp_path / "absent.jsonl", Row)


def test_a_bad_line_raises(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "x"}\n{"txt": 1}\n', encoding="utf-8")
    with pytest.raises(ValidationError):
        read_models(path, Row)


def test_no_rows_write_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("old\n", encoding="utf-8")
    write_models(path, [])
    assert path.read_text(encoding="utf-8") == ""
