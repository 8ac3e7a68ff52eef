"""Cheap, offline well-formedness tests of an output file by its extension.

Nothing is executed: JSON and CSV are parsed, container formats (xlsx, docx, pptx, npz, zip) must
be valid zip archives, binary formats must start with their magic bytes. Unknown extensions only
need to be non-empty. The result is a short problem description, or None when the file is fine.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

ZIP_FORMATS = frozenset({".xlsx", ".xlsm", ".docx", ".pptx", ".npz", ".zip", ".odt", ".ods"})
MAGIC = {
    ".npy": b"\x93NUMPY",
    ".pdf": b"%PDF",
    ".png": b"\x89PNG",
    ".gif": b"GIF8",
    ".jpg": b"\xff\xd8\xff",
    ".jpeg": b"\xff\xd8\xff",
}
TEXT_FORMATS = frozenset({".txt", ".md", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml"})


def parse_problem(path: Path, min_bytes: int = 1) -> str | None:
    """What is wrong with the file at `path`, or None. Never raises."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"unreadable ({exc.__class__.__name__})"
    if len(data) < min_bytes:
        return f"{len(data)} bytes (fewer than {min_bytes})"
    suffix = path.suffix.lower()
    if suffix in ZIP_FORMATS:
        return None if zipfile.is_zipfile(io.BytesIO(data)) else f"not a valid {suffix} archive"
    if suffix in MAGIC:
        return None if data.startswith(MAGIC[suffix]) else f"{suffix} magic bytes missing"
    if suffix not in TEXT_FORMATS:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    if not text.strip():
        return "only whitespace"
    return _text_problem(suffix, text)


def _text_problem(suffix: str, text: str) -> str | None:
    if suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            return f"invalid JSON: {exc.msg} at line {exc.lineno}"
    elif suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except json.JSONDecodeError as exc:
                return f"invalid JSON on line {number}: {exc.msg}"
    elif suffix in (".csv", ".tsv"):
        return _table_problem(text, "\t" if suffix == ".tsv" else ",")
    return None


def _table_problem(text: str, delimiter: str) -> str | None:
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if r]
    data_rows = [r for r in rows if not r[0].startswith("#")]
    if not data_rows:
        return "no rows"
    width = len(data_rows[0])
    ragged = [i for i, r in enumerate(data_rows, 1) if len(r) != width]
    if ragged:
        return f"row {ragged[0]} has a different number of columns than the header"
    return None
