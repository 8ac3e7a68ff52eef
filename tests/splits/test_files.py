"""Split files: one case id a line, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.splits.files import SplitFileError, read_split, write_split


def test_ids_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("# header\ncase-b\n\n  case-a  # trailing note\n")
    assert read_split(path) == ["case-b", "case-a"]
    write_split(tmp_path / "w.txt", ["b", "a"])
    assert read_split(tmp_path / "w.txt") == ["a", "b"]


def test_every_line_that_is_not_a_case_id_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("case-a\n../cases/case-b\ncase-c\n/abs/ds/cases/case-d\n..\nbad\x01id\n")
    with pytest.raises(SplitFileError) as caught:
        read_split(path)
    message = str(caught.value)
    assert f"{path}:2: ../cases/case-b (a path" in message
    assert f"{path}:4: /abs/ds/cases/case-d (a path" in message
    assert f"{path}:5: .. (a relative path step" in message
    assert f"{path}:6: 'bad\\x01id' (a control character" in message
    assert f"{path}:1:" not in message and f"{path}:3:" not in message
