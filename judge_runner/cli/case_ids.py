"""Which cases a judging command takes (`--split`, `--bench`): every case, a named split of the
bench directory, or a file of case ids."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.cli.support import fail
from judge_runner.splits import resolve_split as split_cases


def resolve_split(dataset: Dataset, split: str | None, bench: Path | None) -> tuple[str, list[str]]:
    """(split name, case ids): all cases, a named split of the bench dir, or a file of ids; exit
    2 naming a missing split, every line that is not a case id (a path such as ../cases/<id>
    would judge a folder outside the dataset) or an unreadable file."""
    try:
        return split_cases(dataset, split, bench)
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from exc
