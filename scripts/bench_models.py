"""Benchmark the model client layer: per-call overhead through the real anthropic SDK against the
local fake Messages API, parallel throughput of one shared client, and replay lookups.

    .venv/bin/python scripts/bench_models.py [--calls 300] [--threads 8]

Prints a markdown table. The fake server answers instantly, so the numbers are the client's own
cost (SDK, HTTP on loopback, validation, recording), not a model's latency.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.models import (
    TRANSCRIPT,
    ModelRequest,
    RecordingClient,
    ReplayClient,
    RetryPolicy,
    make_client,
    system_blocks,
)
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, Reply, reply, text

PREFIX = ["judge prompt " * 2000]  # ~26 kB constant prefix, like a JudgeSkill with references


def ask(i: int) -> ModelRequest:
    return ModelRequest(model="claude-sonnet-4-6", system=system_blocks(PREFIX, [f"case {i}"]),
                        messages=[{"role": "user", "content": f"inspect case {i}"}])


def answer(request: ReceivedRequest) -> Reply:
    return reply(text("ok " + request.body["messages"][0]["content"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    server = FakeMessagesServer().start()
    server.responder = answer
    rows: list[tuple[str, str]] = []
    try:
        client = make_client(base_url=server.base_url, retry=RetryPolicy())
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp)
            recorder = RecordingClient(client, run / "case" / TRANSCRIPT)
            recorder.complete(ask(-1))  # warm up the connection pool
            latencies = []
            for i in range(args.calls):
                started = time.perf_counter()
                recorder.complete(ask(i))
                latencies.append(time.perf_counter() - started)
            rows.append(("sequential call, recorded (median)",
                         f"{statistics.median(latencies) * 1000:.2f} ms"))
            rows.append(("sequential call, recorded (p95)",
                         f"{statistics.quantiles(latencies, n=20)[18] * 1000:.2f} ms"))

            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.threads) as pool:
                list(pool.map(lambda i: client.complete(ask(i)), range(args.calls)))
            elapsed = time.perf_counter() - started
            rows.append((f"{args.threads} threads, one shared client",
                         f"{args.calls / elapsed:.0f} calls/s"))
            server.stop()

            started = time.perf_counter()
            replay = ReplayClient(run)
            load = time.perf_counter() - started
            rows.append((f"replay index load ({replay.recorded_calls} calls)",
                         f"{load * 1000:.0f} ms"))
            started = time.perf_counter()
            for i in range(args.calls):
                replay.complete(ask(i))
            per_lookup = (time.perf_counter() - started) / args.calls
            rows.append(("replay lookup", f"{per_lookup * 1000:.3f} ms"))
    finally:
        server.stop()
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
