"""JSON Lines files: one JSON value per line; blank lines carry nothing and are skipped.

Lines are split on "\\n" only. A JSON string may hold U+2028, U+0085 and friends unescaped (our
own writer leaves them raw), and `str.splitlines` would cut a record in two at each of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of `path` with their 1-based line numbers.

    Raises OSError when the file cannot be read and UnicodeDecodeError when it is not UTF-8.
    """
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            yield number, line


def read_models[M: BaseModel](path: Path, model: type[M], *, missing_ok: bool = False) -> list[M]:
    """Every line of `path` as `model`, in file order.

    An absent file is [] when `missing_ok`, else FileNotFoundError. A line that is not valid
    JSON for `model` raises pydantic's ValidationError; callers that must go on past a bad line
    read `numbered_lines` themselves.
    """
    if missing_ok and not path.is_file():
        return []
    return [model.model_validate_json(line) for _, line in numbered_lines(path)]


def read_dicts(path: Path) -> list[Any]:
    """Every line of `path` as plain JSON (json.JSONDecodeError on a line that is not JSON)."""
    return [json.loads(line) for _, line in numbered_lines(path)]


def write_models(path: Path, rows: Iterable[BaseModel]) -> None:
    """Replace `path` with one compact JSON line per row (an empty file when there are none)."""
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
