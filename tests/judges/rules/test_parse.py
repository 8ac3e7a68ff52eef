"""Offline well-formedness tests of output files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from judge_runner.judges.rules.parse import parse_problem


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    return buffer.getvalue()


@pytest.mark.parametrize(("name", "data", "problem"), [
    ("a.json", b'{"a": 1}', None),
    ("a.json", b'{"a": ', "invalid JSON"),
    ("a.jsonl", b'{"a": 1}\nnope\n', "invalid JSON on line 2"),
    ("a.csv", b"x,y\n1,2\n", None),
    ("a.csv", b"x,y\n1,2,3\n", "different number of columns"),
    ("a.csv", b"# only a comment\n", "no rows"),
    ("a.txt", b"  \n", "only whitespace"),
    ("a.txt", b"", "0 bytes"),
    ("a.xlsx", b"not a zip", "not a valid .xlsx archive"),
    ("a.docx", _zip_bytes(), None),
    ("a.npy", b"\x93NUMPY\x01\x00", None),
    ("a.pdf", b"hello", ".pdf magic bytes missing"),
    ("a.bin", b"\x00\x01", None),
    ("a.txt", b"\xff\xfe\x00", "not UTF-8"),
])
def test_parse_problem(tmp_path: Path, name: str, data: bytes, problem: str | None) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    found = parse_problem(path)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_missing_file_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    assert parse_problem(tmp_path / "absent.json") == "unreadable (FileNotFoundError)"
