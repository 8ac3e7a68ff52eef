"""Benchmark the importer on the shared real SkillsBench trials.

    .venv/bin/python scripts/bench_import.py [--data ../shared/data/skillsbench-real] [--repeat 5]

Measures, on one core (the importer is single-threaded):
- trials/s: trials imported per second of wall time for a whole `import_trials` call
  (discovery, parsing, normalization, artifact rebuild, writing), best of --repeat runs;
- token reduction: estimated tokens (≈4 characters/token) of all trajectory.json files over
  those of the raw transcripts they came from.
Targets: >= 20 trials/s and normalized <= 25 % of raw tokens. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from judge_runner import log
from judge_runner.cases import Dataset
from judge_runner.ingest import ImportOptions, TrialStatus, import_trials

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description="importer throughput and token reduction")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" /
                        "skillsbench-real")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    log.configure(level="warning")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    options = ImportOptions(task_dirs=[args.data / "tasks"])
    console = Console()
    timings = []
    with tempfile.TemporaryDirectory() as tmp, Progress(console=console, transient=True) as bar:
        task = bar.add_task("importing", total=args.repeat)
        for i in range(args.repeat):
            out = Path(tmp) / f"run{i}"
            start = time.perf_counter()
            report = import_trials([args.data / "trials"], out, options)
            timings.append(time.perf_counter() - start)
            bar.advance(task)
        imported = report.count(TrialStatus.IMPORTED)
        stats = [c.meta.stats for c in Dataset(out).cases()]
    raw = sum(s.raw_tokens_est for s in stats)
    normalized = sum(s.normalized_tokens_est for s in stats)
    best = min(timings)
    rate = imported / best
    ratio = normalized / raw
    console.print(f"trials imported: {imported} (failed {report.count(TrialStatus.FAILED)})")
    console.print(f"best of {args.repeat}: {best:.3f} s → {rate:.1f} trials/s on one core "
                  f"(median {sorted(timings)[len(timings) // 2]:.3f} s)")
    console.print(f"tokens (≈4 chars/token): raw {raw:,} → normalized {normalized:,} "
                  f"= {100 * ratio:.1f} % of raw")
    ok = rate >= 20 and ratio <= 0.25 and report.count(TrialStatus.FAILED) == 0
    console.print("targets met" if ok else "[red]target missed[/red]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
