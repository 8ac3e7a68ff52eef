"""Benchmark the rules judge's throughput on one core, without a sandbox.

    .venv/bin/python scripts/bench_rules.py [--trials DIR --tasks DIR | --dataset DIR]
                                            [--rounds 10]

Imports the trials (default: ../shared/data/skillsbench-real) once, pins the process to one CPU,
then judges every case `--rounds` times. Each judgment starts from a fresh `CasePackage` (case.json,
trajectory.json and instruction are read and validated from disk every time) and writes its
three products to a temporary folder, as `judge-runner eval` does. Prints a markdown row.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.cases import CasePackage, Dataset
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.log import configure

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "skillsbench-real"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=Path, default=REAL / "trials")
    parser.add_argument("--tasks", type=Path, default=REAL / "tasks")
    parser.add_argument("--dataset", type=Path, help="an imported dataset (skips the import)")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    configure(level="warning")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with tempfile.TemporaryDirectory(prefix="bench_rules_") as tmp:
        work = Path(tmp)
        if args.dataset is None:
            import_trials([args.trials], work / "dataset", ImportOptions(task_dirs=[args.tasks]))
            dataset = Dataset(work / "dataset")
        else:
            dataset = Dataset(args.dataset)
        roots = [c.root for c in dataset.cases()]
        size = sum((r / "trajectory.json").stat().st_size for r in roots)
        judge = RulesJudge(default_skill_dir())
        for root in roots:  # warm-up: imports, regex compilation, page cache
            judge.judge(CasePackage(root), work / "warm" / root.name)
        per_case: list[float] = []
        started = time.perf_counter()
        for n in range(args.rounds):
            for root in roots:
                t0 = time.perf_counter()
                judge.judge(CasePackage(root), work / "out" / str(n) / root.name)
                per_case.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
    total = len(per_case)
    print(f"cases: {len(roots)} x {args.rounds} rounds = {total} judgments; "
          f"trajectory.json total {size / 1e6:.2f} MB; Python {platform.python_version()}; "
          f"1 core pinned")
    print("| judgments | seconds | cases/s | median ms/case | p95 ms/case |")
    print("|---|---|---|---|---|")
    p95 = sorted(per_case)[int(0.95 * (total - 1))] if per_case else 0.0
    print(f"| {total} | {elapsed:.2f} | {total / elapsed:.1f} | "
          f"{statistics.median(per_case) * 1000:.1f} | {p95 * 1000:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
