"""Writing a file whole or not at all: the text goes to a temporary name beside the target and
is renamed over it, so a full disk or a kill never leaves a file that looks complete and is not."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` through `<name>.partial` and a rename. On any error the
    temporary file is removed and `path` keeps what it held before (or stays absent)."""
    partial = path.with_name(f"{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
