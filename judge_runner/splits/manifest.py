"""Split files and manifests under `bench/<name>/`: `<split>.txt` (one case id a line) + JSON."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.cases.dataset import LABELS_FILE, Dataset

BENCH_DIR = "bench"  # default bench directory inside a dataset
MANIFEST_FILE = "manifest.json"


class SplitCounts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    tasks: int
    by_label: dict[str, int]
    by_domain: dict[str, int]
    by_task: dict[str, dict[str, int]]  # task -> label -> count


class PoolCase(BaseModel):
    """What split construction needs to know about one case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    task: str
    domain: str
    label: str  # "pass" | "fail"


def counts(cases: Iterable[PoolCase]) -> SplitCounts:
    cases = list(cases)
    by_task: dict[str, Counter[str]] = {}
    for c in cases:
        by_task.setdefault(c.task, Counter())[c.label] += 1
    return SplitCounts(
        n=len(cases),
        tasks=len(by_task),
        by_label=dict(sorted(Counter(c.label for c in cases).items())),
        by_domain=dict(sorted(Counter(c.domain for c in cases).items())),
        by_task={t: dict(sorted(v.items())) for t, v in sorted(by_task.items())},
    )


class DroppedCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    reason: str


class BenchManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: str  # absolute path of the source dataset
    dataset_sha256: str
    seed: int
    limits: dict[str, int]
    eval_target: int
    dropped: list[DroppedCase] = Field(default_factory=list)
    dropped_tasks: dict[str, str] = Field(default_factory=dict)  # task -> reason
    splits: dict[str, SplitCounts]


def write_split(path: Path, case_ids: Iterable[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{c}\n" for c in sorted(case_ids)), encoding="utf-8")


def read_split(path: Path) -> list[str]:
    """Case ids of a split file; blank lines and `#` comments are ignored."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [s for s in (line.split("#", 1)[0].strip() for line in lines) if s]


def dataset_sha256(dataset: Dataset) -> str:
    """Hash of every case.json and the labels file: changes whenever the pool changes."""
    digest = hashlib.sha256()
    for case_id in dataset.case_ids():
        digest.update(case_id.encode() + b"\0")
        digest.update(hashlib.sha256((dataset.cases_dir / case_id / "case.json").read_bytes())
                      .digest())
    labels = dataset.root / LABELS_FILE
    if labels.is_file():
        digest.update(labels.read_bytes())
    return digest.hexdigest()
