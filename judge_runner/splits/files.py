"""Bench dir file names and split files: `<split>.txt`, one case id a line. A bench dir is
`<dataset>/bench/` unless `bench build --out` names another.

Kept free of heavy imports so that command modules can use the names at import time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

BENCH_DIR = "bench"  # default bench directory inside a dataset
MANIFEST_FILE = "manifest.json"


def write_split(path: Path, case_ids: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{c}\n" for c in sorted(case_ids)), encoding="utf-8")


def read_split(path: Path) -> list[str]:
    """Case ids of a split file; blank lines and `#` comments are ignored. OSError when the
    file cannot be read."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [s for s in (line.split("#", 1)[0].strip() for line in lines) if s]
