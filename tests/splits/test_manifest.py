"""The bench manifest ties splits to the exact dataset they were built from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.splits.build import build_splits
from judge_runner.splits.manifest import (
    BenchManifest,
    DatasetChangedError,
    dataset_sha256,
    verified_dataset,
)
from tests.splits.conftest import import_examples


@pytest.fixture
def built(examples_dataset: Path) -> tuple[Dataset, Path]:
    ds = Dataset(examples_dataset)
    bench = examples_dataset / "bench"
    build_splits(ds, bench, seed=0, eval_size=3)
    return ds, bench


def test_load_reads_what_build_wrote(built: tuple[Dataset, Path]) -> None:
    ds, bench = built
    manifest = BenchManifest.load(bench)
    assert Path(manifest.dataset) == ds.root.resolve()
    assert manifest.dataset_sha256 == dataset_sha256(ds)
    manifest.check_dataset(ds)
    assert verified_dataset(bench).root == ds.root.resolve()


def test_load_names_a_missing_or_broken_manifest(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no manifest\.json; run `judge-runner bench"):
        BenchManifest.load(tmp_path)
    (tmp_path / "manifest.json").write_text('{"dataset": 3}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"manifest.json: not a bench manifest"):
        BenchManifest.load(tmp_path)


def _flip_first_label(ds: Dataset) -> None:
    path = ds.root / "labels.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["label"] = "fail" if first["label"] == "pass" else "pass"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")


def _edit_trajectory(ds: Dataset) -> None:
    path = ds.cases_dir / ds.case_ids()[0] / "trajectory.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"text": "', '"text": "edited ', 1), encoding="utf-8")
    assert path.read_text(encoding="utf-8") != text


def _add_evidence(ds: Dataset) -> None:
    (ds.evidence_dir(ds.case_ids()[0]) / "verifier" / "extra.txt").write_text("1\n",
                                                                            encoding="utf-8")


@pytest.mark.parametrize("change", [_flip_first_label, _edit_trajectory, _add_evidence])
def test_a_changed_dataset_is_refused_naming_both_hashes(
    built: tuple[Dataset, Path], change: object
) -> None:
    ds, bench = built
    before = BenchManifest.load(bench).dataset_sha256
    assert callable(change)
    change(ds)
    now = dataset_sha256(ds)
    assert now != before
    with pytest.raises(DatasetChangedError) as info:
        verified_dataset(bench)
    assert before in str(info.value) and now in str(info.value)
    assert "bench build" in str(info.value)


def test_a_moved_copy_of_the_same_dataset_is_accepted(built: tuple[Dataset, Path],
                                                      tmp_path: Path) -> None:
    ds, bench = built
    copy = import_examples(tmp_path / "elsewhere")
    assert verified_dataset(bench, copy).root == copy
    assert dataset_sha256(Dataset(copy)) == dataset_sha256(ds)
