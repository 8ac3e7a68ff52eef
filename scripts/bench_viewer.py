"""Benchmark the audit viewer: page generation, and page load in headless Chromium.

    .venv/bin/python scripts/bench_viewer.py [--repeats 5] [--synthetic 203 --steps 300]

1. The shared real trials (../shared/data/skillsbench-real) are imported and judged with the
   rules judge (`judge-runner import`, `judge-runner eval`), then `judge-runner view` writes the
   pages. Measured: the time to write them, and in headless Chromium (Playwright driving
   /usr/bin/chromium, fresh profile) the load of the index and of the case page with the largest
   trajectory: navigation start to the load event, over `--repeats` loads (each in a new page).
2. With `--synthetic N`, the same for a generated run of N cases with `--steps` long tool steps
   each (3,000 characters of output per step), the size of the reference eval split.

Prints a markdown table. The target is < 1 s for each page.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.view.browser import Browser, browser, playwright_missing  # noqa: E402

JR = str(ROOT / ".venv" / "bin" / "judge-runner")
REAL = ROOT.parent / "shared" / "data" / "skillsbench-real"


def cli(*args: str) -> None:
    done = subprocess.run([JR, *args], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"judge-runner {' '.join(args)} failed:\n{done.stderr[-2000:]}")


def judge_and_view(dataset: Path, run: Path) -> float:
    cli("eval", str(dataset), "--judge", "rules", "--skill", str(ROOT / "judgeskills" / "v1"),
        "--sandbox", "none", "--run-dir", str(run), "--no-progress")
    started = time.perf_counter()
    cli("view", str(run))
    return time.perf_counter() - started


def largest_case(dataset: Path) -> str:
    return max((p.stat().st_size, p.parent.name)
               for p in (dataset / "cases").glob("*/trajectory.json"))[1]


def loads(b: Browser, page: Path, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        report = b.check(page)
        if not report.ok:
            raise SystemExit(f"{page}: {report}")
        times.append(report.load_ms)
    return times


def measure(b: Browser, name: str, dataset: Path, run: Path, repeats: int) -> list[str]:
    write_s = judge_and_view(dataset, run)
    case = largest_case(dataset)
    size = (dataset / "cases" / case / "trajectory.json").stat().st_size
    index = run / "view" / "index.html"
    page = run / "view" / "cases" / f"{case}.html"
    n_cases = len(list((run / "view" / "cases").glob("*.html")))
    rows = [f"| {name} | pages written (`judge-runner view`, {n_cases} cases) | "
            f"{write_s:.2f} s | |"]
    for label, path in ((f"index ({n_cases} rows)", index),
                        (f"case page, largest trajectory ({size / 1e6:.2f} MB json, page "
                         f"{path_size(page)})", page)):
        times = loads(b, path, repeats)
        rows.append(f"| {name} | {label} | {statistics.median(times):.0f} ms | "
                    f"{max(times):.0f} ms |")
    return rows


def path_size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.2f} MB"


def synthetic_dataset(root: Path, n: int, steps: int) -> Path:
    from tests.casebuilder import summing_dataset

    totals = {f"case-{i:03d}": 42 if i % 3 else 41 for i in range(n)}
    return summing_dataset(root, totals, filler_steps=steps).root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--synthetic", type=int, default=0, help="cases of a generated run")
    parser.add_argument("--steps", type=int, default=300, help="long steps per generated case")
    args = parser.parse_args()
    missing = playwright_missing()
    if missing:
        raise SystemExit(f"bench_viewer: {missing}")
    if not (REAL / "trials").is_dir():
        raise SystemExit(f"bench_viewer: real trials not found at {REAL}")
    rows = ["| run | measure | median | max |", "|---|---|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp, browser() as b:
        work = Path(tmp)
        real = work / "real"
        cli("import", str(REAL / "trials"), "--tasks", str(REAL / "tasks"), "--out", str(real))
        rows += measure(b, "shared real trials", real, work / "run-real", args.repeats)
        if args.synthetic:
            data = synthetic_dataset(work / "synthetic", args.synthetic, args.steps)
            rows += measure(b, f"generated, {args.synthetic} cases × {args.steps} long steps",
                            data, work / "run-synthetic", args.repeats)
    rows.append(f"\nload average (1, 5, 15 min) at the end: "
                f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
