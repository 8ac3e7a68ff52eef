#!/usr/bin/env python3
"""Benchmark the Docker sandbox: per-case lifecycle and per-command latency.

Lifecycle = create the container for a case, run one command (`ls -R /case | wc -l`), remove
it. Per-exec latency = one `true` in an already running sandbox, the judge's steady state.
Case packages are real SkillsBench task directories (mounted in place, read-only).
Prints medians and p90s as JSON; exits 1 when a median misses its target (1 s / 50 ms).

    .venv/bin/python scripts/bench_sandbox.py [--cases 10] [--execs 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from judge_runner import log
from judge_runner.sandbox.docker import DockerSandbox

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "skillsbench-real"
LIFECYCLE_TARGET_S = 1.0
EXEC_TARGET_S = 0.050


def case_dirs(n: int) -> list[Path]:
    """Real task directories (instruction, skills, tests) to stand in for case packages."""
    tasks = sorted(p.parent for p in REAL_DATA.rglob("instruction.md"))
    if not tasks:
        sys.exit(f"no SkillsBench tasks found under {REAL_DATA}")
    return [tasks[i % len(tasks)] for i in range(n)]


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--execs", type=int, default=100)
    args = parser.parse_args()
    log.configure(level="warning")

    dirs = case_dirs(args.cases)
    with DockerSandbox(dirs[0]) as warm:  # first use pays for image/page-cache warm-up
        warm.exec("true")

    lifecycles: list[float] = []
    for case_dir in dirs:
        start = time.perf_counter()
        with DockerSandbox(case_dir) as box:
            result = box.exec("ls -R /case | wc -l")
            if result.exit_code != 0:
                sys.exit(f"bench command failed in {case_dir}: {result}")
        lifecycles.append(time.perf_counter() - start)

    execs: list[float] = []
    with DockerSandbox(dirs[0]) as box:
        for _ in range(args.execs):
            start = time.perf_counter()
            box.exec("true")
            execs.append(time.perf_counter() - start)

    report = {
        "cases": args.cases,
        "execs": args.execs,
        "lifecycle_median_s": round(statistics.median(lifecycles), 3),
        "lifecycle_p90_s": round(p90(lifecycles), 3),
        "exec_median_ms": round(statistics.median(execs) * 1000, 1),
        "exec_p90_ms": round(p90(execs) * 1000, 1),
        # The machine is shared; the load says how much else ran during the measurement.
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))
    ok = (report["lifecycle_median_s"] <= LIFECYCLE_TARGET_S
          and statistics.median(execs) <= EXEC_TARGET_S)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
