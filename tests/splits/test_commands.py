"""The real `judge-runner bench` CLI on the bundled examples: build, gate, stale-split refusal."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.cases.validate import ValidationLimits
from judge_runner.cli import splits as commands
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


def test_a_gate_too_big_for_the_pool_names_sizes_that_fit(examples_dataset: Path) -> None:
    """The defaults (36 = 27 fail + 9 pass) cannot be drawn from a small pool: the error names
    the flags and sizes that can; the build said its splits were small, in words, not dicts."""
    bench = examples_dataset / "bench"
    built = _run("bench", "build", str(examples_dataset), "--eval-size", "3")
    assert built.returncode == 0, built.stderr
    assert "{" not in built.stdout and "labels 5 fail, 4 pass" in built.stdout, built.stdout
    assert "kept 12 of 12 cases: dropped 0 over the limits and 0 in 0 single-outcome" \
        in built.stdout, built.stdout
    assert "warning: the eval split has only 3 cases, so one case moves its accuracy by 0.33" \
        in built.stderr, built.stderr
    gate = _run("bench", "gate", "--dev", str(bench))
    assert gate.returncode == 2
    (line,) = gate.stderr.splitlines()
    assert line.endswith("ask for a smaller one, e.g. --size 9 --fail 5 --pass 4"), line
    fits = _run("bench", "gate", "--dev", str(bench), "--size", "6", "--fail", "3", "--pass", "3")
    assert fits.returncode == 0, fits.stderr
    assert "gate: 6 cases (3 fail, 3 pass)" in fits.stdout


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
    code = "import sys, judge_runner.cli.splits; print('\\n'.join(sorted(sys.modules)))"
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
