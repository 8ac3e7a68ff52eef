#!/usr/bin/env python3
"""A realistic concurrency profile of `run_eval`: agent-judge sessions of ~20 slow turns.

Every case is judged by the real agent judge (real anthropic SDK, real Docker sandbox, one
container per case) against the scripted Messages server on loopback (tests/fakeapi). Each
session is `--turns` model turns: a plan, then one sandbox command per turn, two recorded
inspections and the verdict. The server answers turn t of case k after a latency drawn from
uniform(2, 6) s with a seeded generator, so the model time of every case is known in advance.

Efficiency is measured against the ideal wall time, not against concurrency 1: the ideal is
the makespan of the cases' model time alone (the sum of their scripted latencies) scheduled on
c workers in the runner's order (each case to the first free worker), i.e. what the run would
take if the runner, the sandboxes and the judge cost nothing. Efficiency = ideal / measured.
The c=1 baseline uses shorter sessions (`--baseline-turns`) to stay short; it gives the fixed
cost per case and per turn that the higher concurrencies must hide.

    .venv/bin/python scripts/bench_runner_profile.py [--waves 2] [--concurrency 1 4 16]
        [--turns 20] [--baseline-turns 6] [--baseline-cases 3] [--seed 0]

At concurrency c the run judges `--waves` × c cases, so the second wave's sandboxes start while
the first wave's sessions are under way, as in a long run.

Needs a Docker engine and the judge image. Prints JSON; exits 1 when efficiency at the highest
concurrency is below 90 %.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner import log
from judge_runner.cases import Dataset
from judge_runner.judges.agent import make_judge
from judge_runner.judges.base import Decision
from judge_runner.judges.registry import JudgeOptions
from judge_runner.runs.runner import run_eval
from judge_runner.sandbox import install_cleanup_hooks
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, Reply, Slow
from tests.judges.sessions import bash, inspection, plan, verdict

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.90
MIN_LATENCY_S, MAX_LATENCY_S = 2.0, 6.0


def session(total: int, turns: int) -> list[Reply]:
    """`turns` replies: plan, turns-4 sandbox commands, two inspections citing the first two
    commands' output, verdict."""
    commands = [bash("cat /case/artifacts/root/out.json", "tu_bash_0")]
    commands += [bash(f"ls -la /case /case/artifacts && echo turn {i}", f"tu_bash_{i}")
                 for i in range(1, turns - 4)]
    outcome = "supports" if total == 42 else "refutes"
    return [
        plan(), *commands,
        inspection("P1", "tu_bash_0", f'"total": {total}', outcome, "tu_rec1", True),
        inspection("P2", "tu_bash_1", "turn 1", "inconclusive", "tu_rec2"),
        verdict("pass" if total == 42 else "fail", ["I1", "I2"]),
    ]


def latencies(case_ids: list[str], turns: int, seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    return {c: [round(rng.uniform(MIN_LATENCY_S, MAX_LATENCY_S), 3) for _ in range(turns)]
            for c in case_ids}


def ideal_makespan(work: list[float], workers: int) -> float:
    """Cases in order, each to the worker that frees up first; the last finish time."""
    free = [0.0] * workers
    for seconds in work:
        heapq.heappush(free, heapq.heappop(free) + seconds)
    return max(free)


def responder(scripts: dict[str, list[Reply]], delays: dict[str, list[float]]) -> Any:
    def respond(request: Any) -> Slow:
        messages = request.body["messages"]
        first = messages[0]["content"]
        first_text = first if isinstance(first, str) else first[0]["text"]
        case_id = first_text.splitlines()[0].removeprefix("# Case ").strip()
        turn = sum(1 for m in messages if m["role"] == "assistant")
        return Slow(delay_s=delays[case_id][turn], then=scripts[case_id][turn])
    return respond


def profile(work: Path, n_cases: int, turns: int, concurrency: int, seed: int) -> dict[str, Any]:
    totals = {f"case-{i:03d}": 42 if i % 2 else 40 for i in range(n_cases)}
    ds = casebuilder.summing_dataset(work / f"ds-c{concurrency}", totals)
    for path in [ds.root, *ds.root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    ids = sorted(totals)
    delays = latencies(ids, turns, seed)
    server = FakeMessagesServer().start()
    server.responder = responder({c: session(t, turns) for c, t in totals.items()}, delays)
    try:
        judge = make_judge(JudgeOptions(
            skill=ROOT / "judgeskills" / "v1", model="claude-bench", base_url=server.base_url,
            sandbox="docker", extra={"retry": {"max_attempts": 1}}))
        started = time.perf_counter()
        result = run_eval(judge, Dataset(ds.root), ids, work / f"run-c{concurrency}",
                          concurrency=concurrency, progress=False, write_reports=False)
        wall = time.perf_counter() - started
    finally:
        server.stop()
    wrong = [r.case_id for r in result.records
             if r.decision is Decision.ERROR or r.verdict.details.get("turns") != turns]
    if wrong:
        errors = {r.case_id: r.verdict.error for r in result.records if r.case_id in wrong}
        raise SystemExit(f"c={concurrency}: sessions did not run as scripted: {errors}")
    model_time = [sum(delays[c]) for c in ids]
    ideal = ideal_makespan(model_time, concurrency)
    return {"cases": n_cases, "turns": turns, "wall_s": round(wall, 1),
            "ideal_s": round(ideal, 1), "efficiency": round(ideal / wall, 3),
            "overhead_s_per_case": round((wall * concurrency - sum(model_time)) / n_cases, 2)
            if concurrency == 1 else None,
            "load_average_1m": round(os.getloadavg()[0], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--waves", type=int, default=2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--baseline-turns", type=int, default=6)
    parser.add_argument("--baseline-cases", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    log.configure(level="warning")
    install_cleanup_hooks()
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        for c in args.concurrency:
            if c == 1:
                rows["1"] = profile(Path(tmp), args.baseline_cases, args.baseline_turns, 1,
                                    args.seed)
            else:
                rows[str(c)] = profile(Path(tmp), args.waves * c, args.turns, c, args.seed)
            print(json.dumps({f"c={c}": rows[str(c)]}), file=sys.stderr, flush=True)
    top = rows[str(max(args.concurrency))]
    report = {"seed": args.seed, "latency_per_turn_s": [MIN_LATENCY_S, MAX_LATENCY_S],
              "sandbox": "docker", "scaling": rows, "cpus": os.cpu_count(),
              "target_ok": top["efficiency"] >= TARGET}
    print(json.dumps(report, indent=2))
    return 0 if report["target_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
