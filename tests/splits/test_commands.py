"""The real `judge-runner bench` CLI on the bundled examples: build, gate, stale-split refusal."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

from judge_runner.cases import Dataset, ValidationLimits
from judge_runner.splits import commands
from judge_runner.splits.build import DEFAULT_EVAL_FRACTION
from judge_runner.splits.manifest import BenchManifest, dataset_sha256, read_split
from tests.conftest import REPO

JR = [str(Path(sys.executable).parent / "judge-runner")]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JR, *args], capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, "COLUMNS": "400"})


def test_build_then_gate(examples_dataset: Path) -> None:
    bench = examples_dataset / "bench"
    built = _run("bench", "build", str(examples_dataset), "--eval-size", "3")
    assert built.returncode == 0, built.stderr
    gate = _run("bench", "gate", "--dev", str(bench), "--size", "3", "--fail", "2", "--pass", "1")
    assert gate.returncode == 0, gate.stderr
    ids = read_split(bench / "gate.txt")
    assert len(ids) == 3 and set(ids) <= set(read_split(bench / "dev.txt"))


def test_gate_refuses_a_relabeled_dataset(examples_dataset: Path) -> None:
    bench = examples_dataset / "bench"
    assert _run("bench", "build", str(examples_dataset), "--eval-size", "3").returncode == 0
    built_hash = BenchManifest.load(bench).dataset_sha256
    labels = examples_dataset / "labels.jsonl"
    records = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    records[0]["label"] = "fail" if records[0]["label"] == "pass" else "pass"
    labels.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    gate = _run("bench", "gate", "--dev", str(bench), "--size", "3", "--fail", "2", "--pass", "1")
    assert gate.returncode == 2
    assert "error:" in gate.stderr and "changed since its splits were built" in gate.stderr
    assert built_hash in gate.stderr
    assert dataset_sha256(Dataset(examples_dataset)) in gate.stderr
    assert not (bench / "gate.txt").exists()


def test_gate_without_a_bench_dir_says_what_to_run(tmp_path: Path) -> None:
    gate = _run("bench", "gate", "--dev", str(tmp_path))
    assert gate.returncode == 2 and "run `judge-runner bench build` first" in gate.stderr


def test_the_commands_module_imports_no_implementation() -> None:
    code = "import sys, judge_runner.splits.commands; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    heavy = {"pydantic", "rich.console", "judge_runner.cases", "judge_runner.runs",
             "judge_runner.splits.build", "judge_runner.splits.manifest"}
    assert not heavy & set(done.stdout.split())


def test_option_defaults_are_the_builder_defaults() -> None:
    limits = ValidationLimits()
    defaults = {name: p.default
                for name, p in inspect.signature(commands.build_command).parameters.items()}
    assert defaults["eval_fraction"] == DEFAULT_EVAL_FRACTION
    assert defaults["max_tokens"] == limits.max_trajectory_tokens
    assert defaults["max_steps"] == limits.max_steps
