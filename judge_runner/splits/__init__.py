"""Benchmark splits: task-disjoint dev/eval construction and the fixed evolution gate."""

from judge_runner.splits.files import (
    BENCH_DIR,
    MANIFEST_FILE,
    SplitFileError,
    read_split,
    resolve_split,
    write_split,
)
from judge_runner.splits.manifest import verified_dataset

__all__ = [
    "BENCH_DIR",
    "MANIFEST_FILE",
    "SplitFileError",
    "read_split",
    "resolve_split",
    "verified_dataset",
    "write_split",
]
