"""Which cases a judging command takes (`--split`, `--bench`): every case, a named split of the
bench directory, or a file of case ids."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.cli.support import fail
from judge_runner.splits import BENCH_DIR, read_split


def resolve_split(dataset: Dataset, split: str | None, bench: Path | None) -> tuple[str, list[str]]:
    """(split name, case ids): all cases, a named split of the bench dir, or a file of ids."""
    if split is None:
        return "all", dataset.case_ids()
    as_file = Path(split)
    if as_file.is_file():
        return as_file.stem, _read_split_or_exit(as_file)
    bench_dir = bench if bench is not None else dataset.root / BENCH_DIR
    path = bench_dir / f"{split}.txt"
    if not path.is_file():
        raise fail(f"split {split!r}: neither a file nor {path} "
                    "(run `judge-runner bench build` / `bench gate`, or pass --bench DIR)")
    return split, _read_split_or_exit(path)


def _read_split_or_exit(path: Path) -> list[str]:
    """Case ids of a split file; exit 2 naming every line that is not a case id (a path such as
    ../cases/<id> would judge a folder outside the dataset) or an unreadable file."""
    try:
        return read_split(path)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
