"""The bench manifest (`manifest.json` in a bench dir, by default `<dataset>/bench/`, beside the
`<split>.txt` files): what the splits were built from, with what settings, and their counts."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.cases import Dataset
from judge_runner.core import CASES_DIR, EVIDENCE_DIR, LABELS_FILE

# Re-exported for callers that import them from here; new code imports judge_runner.splits.files.
from judge_runner.splits.files import BENCH_DIR as BENCH_DIR
from judge_runner.splits.files import MANIFEST_FILE as MANIFEST_FILE
from judge_runner.splits.files import read_split as read_split
from judge_runner.splits.files import write_split as write_split
from judge_runner.splits.funnel import Funnel


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


class DatasetChangedError(ValueError):
    """The dataset differs from the one a bench dir's splits were built from."""


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
    funnel: Funnel | None = None  # None in manifests written before the funnel was reported

    @classmethod
    def load(cls, bench_dir: Path) -> BenchManifest:
        """Read `<bench_dir>/manifest.json`. Raises FileNotFoundError when it is missing and
        ValueError naming the file when it is not a bench manifest."""
        path = bench_dir / MANIFEST_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{bench_dir}: no {MANIFEST_FILE}; run `judge-runner bench "
                                    "build` first")
        try:
            return cls.model_validate_json(path.read_text(encoding="utf-8"))
        except ValidationError as exc:
            raise ValueError(f"{path}: not a bench manifest ({exc})") from exc

    def check_dataset(self, dataset: Dataset) -> None:
        """Refuse a dataset whose content changed since the splits were built (re-imported,
        relabeled, edited): its splits would be stale. Raises DatasetChangedError naming both
        hashes."""
        current = dataset_sha256(dataset)
        if current != self.dataset_sha256:
            raise DatasetChangedError(
                f"{dataset.root} changed since its splits were built: manifest dataset_sha256 "
                f"{self.dataset_sha256}, dataset now {current}; rebuild the splits with "
                "`judge-runner bench build`")


def verified_dataset(bench_dir: Path, dataset: Path | None = None) -> Dataset:
    """The dataset of a bench dir (`dataset`, else the one its manifest records), refused unless
    its content is what the splits were built from. Raises FileNotFoundError / ValueError from
    `BenchManifest.load` and DatasetChangedError from `BenchManifest.check_dataset`."""
    manifest = BenchManifest.load(bench_dir)
    ds = Dataset(dataset if dataset is not None else Path(manifest.dataset))
    if not ds.cases_dir.is_dir():
        raise FileNotFoundError(f"{ds.root} is not a dataset: {ds.cases_dir} does not exist")
    manifest.check_dataset(ds)
    return ds


def dataset_sha256(dataset: Dataset) -> str:
    """Hash of everything a split depends on: every file under `cases/` and `evidence/` (its
    path and bytes; a link by its target, never followed) and the labels file. Any re-import,
    relabeling or edit that could change which cases validate, or their labels, changes it."""
    digest = hashlib.sha256()
    for top in (CASES_DIR, EVIDENCE_DIR):
        for path in _files(dataset.root / top):
            rel = path.relative_to(dataset.root).as_posix()
            if path.is_symlink():
                content = b"link:" + os.readlink(path).encode()
            else:
                with path.open("rb") as f:
                    content = hashlib.file_digest(f, "sha256").digest()
            digest.update(rel.encode() + b"\0" + content + b"\0")
    labels = dataset.root / LABELS_FILE
    digest.update(b"labels\0" + (labels.read_bytes() if labels.is_file() else b""))
    return digest.hexdigest()


def _files(base: Path) -> list[Path]:
    """Regular files and links below `base`, sorted; symlinked folders are not entered."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        found.extend(here / f for f in files)
        found.extend(here / d for d in dirs if (here / d).is_symlink())
    return sorted(found)
