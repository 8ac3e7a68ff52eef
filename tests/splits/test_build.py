"""`bench build` on the real shared trials: filtering, task-disjointness, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, ValidationLimits
from judge_runner.splits.build import SplitError, build_splits
from judge_runner.splits.manifest import read_split
from tests.conftest import REPO


def _tasks(ds: Dataset, ids: list[str]) -> set[str]:
    return {ds.case(i).meta.task for i in ids}


def test_split_is_task_disjoint_and_keeps_two_outcome_tasks(
    real_dataset: Path, tmp_path: Path
) -> None:
    ds = Dataset(real_dataset)
    built = build_splits(ds, tmp_path / "bench", seed=0, eval_size=4)
    bench = tmp_path / "bench"
    dev, ev = read_split(bench / "dev.txt"), read_split(bench / "eval.txt")
    assert not _tasks(ds, dev) & _tasks(ds, ev)
    labels = ds.labels()
    for split in (dev, ev):  # every kept task has both outcomes
        for task in _tasks(ds, split):
            outcomes = {labels[i].label.value for i in split if ds.case(i).meta.task == task}
            assert outcomes == {"pass", "fail"}, task
    # SOURCE.md: five tasks of the sample have one pass and one fail; the other ten one outcome
    assert len(dev) + len(ev) == 10 and len(built.manifest.dropped_tasks) == 10
    assert built.manifest.dropped_tasks["3d-scan-calc"] == "only pass cases"
    assert len(ev) == 4
    # domain-balanced: the two eval tasks come from two different domains
    assert len(built.manifest.splits["eval"].by_domain) == 2
    manifest = json.loads((tmp_path / "bench" / "manifest.json").read_text())
    assert manifest["splits"]["dev"]["by_label"] == {"fail": 3, "pass": 3}
    assert len(manifest["dataset_sha256"]) == 64


def test_build_is_deterministic_per_seed(real_dataset: Path, tmp_path: Path) -> None:
    ds = Dataset(real_dataset)
    files = ("dev.txt", "eval.txt", "manifest.json")
    outputs = []
    for name, seed in (("a", 3), ("b", 3)):
        build_splits(ds, tmp_path / name, seed=seed, eval_size=4)
        outputs.append([(tmp_path / name / f).read_bytes() for f in files])
    assert outputs[0] == outputs[1]
    evals = set()
    for seed in range(8):
        build_splits(ds, tmp_path / f"s{seed}", seed=seed, eval_size=4)
        evals.add((tmp_path / f"s{seed}" / "eval.txt").read_text())
    assert len(evals) > 1, "the seed must matter"


def test_limits_drop_cases_with_reasons(real_dataset: Path, tmp_path: Path) -> None:
    ds = Dataset(real_dataset)
    steps = {i: ds.case(i).meta.stats.n_steps for i in ds.case_ids()}
    limit = max(steps.values()) - 1
    built = build_splits(ds, tmp_path / "c", eval_size=2, limits=ValidationLimits(max_steps=limit))
    over = {i for i, n in steps.items() if n > limit}
    assert over and {d.case_id for d in built.manifest.dropped} == over
    assert all("steps" in d.reason for d in built.manifest.dropped)
    kept = {c.case_id for c in built.dev + built.eval}
    assert not kept & over
    assert built.manifest.limits["max_steps"] == limit


def test_impossible_split_is_a_clear_error(real_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(SplitError, match="eval size 10 must be between 1 and 9"):
        build_splits(Dataset(real_dataset), tmp_path / "b", eval_size=10)


def test_bench_cli(real_dataset: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    jr = [sys.executable, "-m", "judge_runner.cli", "bench"]
    done = subprocess.run([*jr, "build", str(real_dataset), "--out", str(tmp_path / "b"),
                           "--eval-size", "4"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "eval: 4 cases, 2 tasks" in done.stdout
    done = subprocess.run([*jr, "gate", "--dev", str(tmp_path / "b"), "--size", "4", "--fail", "3",
                           "--pass", "1"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(read_split(tmp_path / "b" / "gate.txt")) == 4
    done = subprocess.run([*jr, "gate", "--dev", str(tmp_path / "b")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "3 pass and 3 fail cases" in done.stderr and "9 pass + 27 fail" in done.stderr
