"""Bench dir file names and split files: `<split>.txt`, one case id a line. A bench dir is
`<dataset>/bench/` unless `bench build --out` names another.

Kept free of heavy imports so that command modules can use the names at import time.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge_runner.cases import Dataset

BENCH_DIR = "bench"  # default bench directory inside a dataset
MANIFEST_FILE = "manifest.json"


def write_split(path: Path, case_ids: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{c}\n" for c in sorted(case_ids)), encoding="utf-8")


class SplitFileError(ValueError):
    """A split file holds something other than case ids; the message names each bad line as
    ``file:line: text (reason)``."""


def read_split(path: Path) -> list[str]:
    """Case ids of a split file, one a line; blank lines and `#` comments are ignored.

    Only case ids are accepted (see `judge_runner.cases.ids`): a path such as
    ``../cases/<id>`` or ``/abs/cases/<id>`` would make the run judge a folder other than
    ``cases/<id>`` of the dataset, so any such line refuses the whole file before anything is
    judged.

    Raises:
        OSError: the file cannot be read.
        SplitFileError: some line is not a case id (all such lines are named, up to 10).
    """
    # Imported here: judge_runner.cases pulls in the pydantic models, and this module must stay
    # cheap to import (see the module docstring).
    from judge_runner.cases import case_id_problem

    ids: list[str] = []
    bad: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        problem = case_id_problem(text)
        if problem is None:
            ids.append(text)
        else:
            shown_text = text if text.isprintable() else repr(text)
            bad.append(f"{path}:{number}: {shown_text} ({problem})")
    if bad:
        shown = "\n  ".join(bad[:10]) + (f"\n  ... and {len(bad) - 10} more" if len(bad) > 10
                                         else "")
        raise SplitFileError(f"{path}: split files hold case ids only; refused:\n  {shown}")
    return ids


def resolve_split(dataset: Dataset, split: str | None,
                  bench: Path | None) -> tuple[str, list[str]]:
    """(split name, case ids): every case when `split` is None, else a file of case ids, else
    the split of that name in `bench` (default DATASET/bench). Raises SplitFileError when the
    split is neither, or a line of its file is not a case id; OSError when it cannot be read."""
    if split is None:
        return "all", dataset.case_ids()
    as_file = Path(split)
    if as_file.is_file():
        return as_file.stem, read_split(as_file)
    bench_dir = bench if bench is not None else dataset.root / BENCH_DIR
    path = bench_dir / f"{split}.txt"
    if not path.is_file():
        raise SplitFileError(f"split {split!r}: neither a file nor {path} (run `judge-runner "
                             "bench build` / `bench gate`, or pass --bench DIR)")
    return split, read_split(path)
