#!/usr/bin/env python3
"""Benchmark how fast the Docker sandbox drains command output, and what it leaves on disk.

For each kind of output (line-heavy: `yes`, two bytes a line; binary: `/dev/zero` bytes, and
random bytes written to the sandbox's tmpfs scratch beforehand, so that generating them is not
timed) one command prints `--mb` MB in a running sandbox; the host
keeps the capped head and tail (`SandboxLimits.output_cap`, 1 MiB each stream) and drops the
rest as it arrives. Reported per kind: wall time and MB/s drained (median of `--repeats`), the
host's CPU seconds, and the host disk the command cost: the growth of the container's folder
under /var/lib/docker/containers/<id>/ and the size of the engine's log file (LogPath; none
with the sandbox's `none` log driver). Also the per-exec latency of `true`, to show draining
did not slow small commands.

    .venv/bin/python scripts/bench_sandbox_output.py [--mb 50] [--repeats 3] [--execs 100]

Needs a Docker engine, the judge image (scripts/build-images) and read access to the engine's
data root (run as root). Prints JSON; exits 1 when a kind drains below 50 MB/s, or the container
log is not 0 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from judge_runner import log
from judge_runner.sandbox import SandboxLimits
from judge_runner.sandbox.docker import DockerSandbox

TARGET_MB_S = 50.0
KINDS = {
    "line-heavy (yes)": "yes | head -c {n}",
    "binary (/dev/zero)": "head -c {n} /dev/zero",
    "binary (random bytes)": "cat /scratch/random.bin",
}


def folder_bytes(path: Path) -> int:
    """Bytes allocated on disk under `path` (what `du` counts), 0 when it does not exist."""
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except FileNotFoundError:
                continue
    return total


def log_path_bytes(log_path: str) -> int | None:
    """Size of the engine's log file for the container; None when it has none."""
    if not log_path:
        return None
    try:
        return os.path.getsize(log_path)
    except FileNotFoundError:
        return 0


def measure(box: DockerSandbox, cmd: str, repeats: int, container_dir: Path,
            log_path: str) -> dict[str, Any]:
    walls: list[float] = []
    cpus: list[float] = []
    growth: list[int] = []
    for _ in range(repeats):
        before = folder_bytes(container_dir)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        result = box.exec(cmd)
        walls.append(time.perf_counter() - wall0)
        cpus.append(time.process_time() - cpu0)
        growth.append(folder_bytes(container_dir) - before)
        if result.exit_code != 0 or not result.truncated:
            sys.exit(f"bench command {cmd!r} failed: exit {result.exit_code}, "
                     f"truncated {result.truncated}, stderr {result.stderr[-500:]!r}")
        if len(result.stdout) > 2 * box.limits.output_cap:
            sys.exit(f"output cap not applied: kept {len(result.stdout)} characters")
    return {"wall_s": round(statistics.median(walls), 3),
            "host_cpu_s": round(statistics.median(cpus), 3),
            "container_dir_growth_bytes": max(growth),
            "log_file_bytes": log_path_bytes(log_path)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="MB printed per command")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--execs", type=int, default=100, help="`true` runs for the latency")
    args = parser.parse_args()
    log.configure(level="warning")
    n = args.mb * 1_000_000

    with tempfile.TemporaryDirectory() as tmp:
        case_dir = Path(tmp) / "cases" / "bench"
        case_dir.mkdir(parents=True)
        for path in (Path(tmp), Path(tmp) / "cases", case_dir):
            path.chmod(0o755)
        limits = SandboxLimits(exec_timeout=300, scratch_mb=args.mb + 16)
        with DockerSandbox(case_dir, limits=limits) as box:
            info = box._api.inspect_container(box.container_id)
            log_path = str(info.get("LogPath") or "")
            container_dir = Path("/var/lib/docker/containers") / box.container_id
            made = box.exec(f"head -c {n} /dev/urandom > /scratch/random.bin")
            if made.exit_code != 0:
                sys.exit(f"cannot write the random file: {made.stderr}")
            kinds = {}
            for kind, template in KINDS.items():
                row = measure(box, template.format(n=n), args.repeats, container_dir, log_path)
                row["mb_s"] = round(args.mb / row["wall_s"], 1)
                kinds[kind] = row
            latencies = []
            for _ in range(args.execs):
                start = time.perf_counter()
                box.exec("true")
                latencies.append(time.perf_counter() - start)
            report = {
                "mb_per_command": args.mb,
                "repeats": args.repeats,
                "log_driver": info["HostConfig"]["LogConfig"]["Type"],
                "log_path": log_path or None,
                "container_dir_readable": container_dir.is_dir(),
                "kinds": kinds,
                "exec_true_median_ms": round(statistics.median(latencies) * 1000, 1),
                "load_average_1m": round(os.getloadavg()[0], 2),
                "cpus": os.cpu_count(),
            }
    print(json.dumps(report, indent=2))
    slow = [k for k, row in kinds.items() if row["mb_s"] < TARGET_MB_S]
    logged = [k for k, row in kinds.items() if row["log_file_bytes"]]
    if slow or logged:
        print(f"targets missed: below {TARGET_MB_S} MB/s: {slow}; container log written: "
              f"{logged}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
