"""Benchmark the importer per source format: throughput and peak memory.

    .venv/bin/python scripts/bench_import_formats.py [--copies 25] [--repeat 3]

Formats and inputs:
- claude-code: the 26 real trials of ../shared/data/skillsbench-real (stream-json);
- terminus-2, gemini-cli: the real trials of ../shared/data/skillsbench-harnesses, each copied
  --copies times under distinct folder names (distinct cases, same content);
- inspect: an eval log written by inspect_ai itself (tests/ingest/inspect_task.py, mock model)
  with 3 x --copies samples;
- plain: 2 x --copies synthetic plain runs of 40 steps each.

For each: trials/s of a whole in-process import (best of --repeat, pinned to one core), and the
peak RSS of `judge-runner import` run in a child process (`ru_maxrss` from `wait4`, started by
a small launcher so that this script's own size does not count: the interpreter and the CLI's
imports included; the baseline of `judge-runner import --help` is printed for comparison).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from judge_runner import log
from judge_runner.ingest import ImportOptions, ImportReport, TrialStatus, import_trials
from judge_runner.ingest.external import import_runs
from judge_runner.ingest.inspect_log import find_samples
from judge_runner.ingest.plain import find_runs

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
JR = Path(sys.executable).parent / "judge-runner"
sys.path.insert(0, str(REPO))


def replicate(source: Path, dest: Path, copies: int) -> None:
    """Each trial folder (the parent of agent/) copied `copies` times as <name>-<i>: a case id
    hashes the trial folder's name, so each copy is a case of its own."""
    for agent in sorted(source.rglob("agent")):
        trial = agent.parent
        for i in range(copies):
            shutil.copytree(trial, dest / f"{trial.name}-{i}")


def plain_runs(dest: Path, count: int) -> None:
    for n in range(count):
        run = dest / f"run-{n:04d}"
        (run / "artifacts").mkdir(parents=True)
        (run / "run.json").write_text(json.dumps({"task": f"task-{n % 5}", "agent": "bench 1",
                                                  "final_message": "done"}))
        (run / "instruction.md").write_text("Compute the report.\n")
        steps: list[dict[str, Any]] = []
        for i in range(20):
            steps.append({"kind": "assistant_message", "text": f"step {i}: " + "thinking " * 40})
            steps.append({"kind": "tool_call", "tool": "bash", "tool_use_id": f"c{i}",
                          "arguments": {"command": f"python3 step_{i}.py > out_{i}.txt"},
                          "output": "row,value\n" * 300, "exit_code": 0})
        (run / "steps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
        (run / "artifacts" / "report.md").write_text("# report\n" * 50)
        (run / "label.json").write_text(json.dumps({"reward": float(n % 2)}))


def _harbor_import(folder: Path, options: ImportOptions) -> Callable[[Path], ImportReport]:
    return lambda out: import_trials([folder], out, options)


# On Linux a child's ru_maxrss starts from the high-water mark of the process it was forked from,
# and this script is large by the time it measures (its in-process imports, inspect_ai): a small
# interpreter starts the command instead and reports what the command itself peaked at.
_LAUNCHER = """\
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def child_rss_mib(args: list[str]) -> float:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCHER, str(JR), "--log-level",
                           "warning", *args], capture_output=True, text=True, check=True)
    code, kib = (int(x) for x in done.stdout.split())
    if code != 0:
        raise SystemExit(f"judge-runner import {' '.join(args)} failed")
    return kib / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description="importer throughput and memory per format")
    parser.add_argument("--copies", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    log.configure(level="warning")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    console = Console()
    table = Table("format", "input", "trials", "trials/s (best)", "peak RSS (child)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        real, harness = SHARED / "skillsbench-real", SHARED / "skillsbench-harnesses"
        for name in ("terminus-2", "gemini-cli"):
            replicate(harness / "trials" / "shenghan" / name, root / name, args.copies)
        plain_runs(root / "plain", 2 * args.copies)
        from tests.ingest.inspect_task import write_log

        log_file = write_log(root / "inspect", copies=args.copies)
        cases: list[tuple[str, str, Callable[[Path], ImportReport], list[str]]] = []
        harbor = ImportOptions(task_dirs=[real / "tasks", harness / "tasks"])
        tasks = ["--tasks", str(real / "tasks"), "--tasks", str(harness / "tasks")]
        cases.append(("claude-code", "26 real trials",
                      lambda out: import_trials([real / "trials"], out, harbor),
                      [str(real / "trials"), *tasks]))
        for name in ("terminus-2", "gemini-cli"):
            folder = root / name
            cases.append((name, f"real trials x {args.copies}",
                          _harbor_import(folder, harbor), [str(folder), *tasks]))
        plain_opts = ImportOptions(task_dirs=[])
        cases.append(("plain", "synthetic, 40 steps",
                      lambda out: import_runs(find_runs([root / "plain"], 1.0), out, plain_opts),
                      ["--format", "plain", str(root / "plain")]))
        cases.append(("inspect", "inspect_ai mock-model log",
                      lambda out: import_runs(find_samples([log_file], None, 1.0), out,
                                              plain_opts),
                      ["--format", "inspect", str(log_file)]))
        for name, what, run, cli in cases:
            best, report = float("inf"), None
            for i in range(args.repeat):
                out = root / f"out-{name}-{i}"
                start = time.perf_counter()
                report = run(out)
                best = min(best, time.perf_counter() - start)
            assert report is not None
            failed = report.count(TrialStatus.FAILED)
            if failed:
                console.print(f"[red]{name}: {failed} failed[/red]")
                return 1
            n = report.count(TrialStatus.IMPORTED)
            rss = child_rss_mib(["import", *cli, "--out", str(root / f"child-{name}")])
            table.add_row(name, what, str(n), f"{n / best:.1f}", f"{rss:.0f} MiB")
    console.print(table)
    console.print(f"baseline: `judge-runner import --help` peaks at "
                  f"{child_rss_mib(['import', '--help']):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
