"""Benchmark the agent judge's own cost per case: a scripted 8-turn session (plan, three real
sandbox commands/pages, three recorded inspections, verdict) on each bundled example case,
through the real anthropic SDK against the instant local fake Messages API.

    .venv/bin/python scripts/bench_agent_judge.py [--repeats 2] [--sandbox local,docker]

Prints a markdown table per sandbox kind. No model latency is included: the numbers are the
runner's overhead (prompt rendering, protocol checks, sandbox start and commands, recording,
products), which is what a real run adds on top of the model's time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.cases import Dataset
from judge_runner.core import Decision
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.judges.agent import make_judge
from judge_runner.judges.registry import JudgeOptions
from judge_runner.log import configure
from tests.fakeapi import FakeMessagesServer
from tests.judges.sessions import bundled_session

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bench" / "examples"


def bench(kind: str, dataset: Dataset, repeats: int, work: Path) -> list[tuple[str, str]]:
    server = FakeMessagesServer().start()
    try:
        judge = make_judge(JudgeOptions(skill=ROOT / "judgeskills" / "v1", model="claude-bench",
                                        base_url=server.base_url, sandbox=kind))
        cases = [c for c in dataset.cases()
                 if c.trajectory.final_message and any(a.stored_as for a in c.meta.artifacts)]
        times: list[float] = []
        turns = 0
        for repeat in range(repeats):
            for case in cases:
                stored = next(a.stored_as for a in case.meta.artifacts if a.stored_as)
                server.push(*bundled_session(stored, (case.artifacts_dir / stored).read_text(),
                                             case.trajectory.final_message or "", "fail"))
                started = time.perf_counter()
                verdict = judge.judge(case, work / kind / str(repeat) / case.id)
                times.append(time.perf_counter() - started)
                if verdict.decision != Decision.FAIL:
                    raise SystemExit(f"{case.id}: unexpected verdict {verdict}")
                turns += verdict.details["turns"]
    finally:
        server.stop()
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return [
        ("cases judged", str(len(times))),
        ("per case, median", f"{statistics.median(times) * 1000:.0f} ms"),
        ("per case, p95", f"{p95 * 1000:.0f} ms"),
        ("per model turn (mean)", f"{sum(times) / turns * 1000:.1f} ms"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--sandbox", default="local,docker")
    args = parser.parse_args()
    configure(level="warning")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        import_trials([EXAMPLES / "trials"], work / "dataset",
                      ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
        dataset = Dataset(work / "dataset")
        for kind in args.sandbox.split(","):
            print(f"\n### sandbox: {kind}\n\n| measure | value |\n|---|---|")
            for name, value in bench(kind, dataset, args.repeats, work):
                print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
