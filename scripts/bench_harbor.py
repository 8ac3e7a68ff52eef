"""Benchmark what Harbor adds per case over `judge-runner eval`, on the local Docker engine.

    .venv/bin/python scripts/bench_harbor.py [--cases 4] [--concurrency 1,4]
        [--modes build,prebuilt] [--floor]

Same bundled cases, same scripted judge session (plan, one bash command, one file read, one
inspection, verdict) against the instant fake Messages API, same judge image. For each
concurrency: wall time of `judge-runner eval --sandbox docker` and of `harbor run` with
JudgeAgent over the tasks of each export mode (build: one image build per task; prebuilt: the
judge image as it is, the case uploaded at setup), per case, with the load average around each
command. Then where a trial's time goes (Harbor's phase timings of every trial, median), and the
images the engine built during each job, from its image events: a prebuilt job that built one
fails the script. With --floor, also Harbor's own `nop` agent over the prebuilt tasks: a trial
with no agent work at all (container up, verifier, teardown), what any Harbor agent pays on this
engine. No model latency is included. Needs Docker, the judge image
(scripts/build-images) and the harbor extra.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.cases.dataset import Dataset
from judge_runner.harbor.export import ExportOptions, TaskBuild, export_tasks
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.skills import load_skill
from tests.fakeapi import FakeMessagesServer
from tests.harbor.conftest import HARBOR_OFFLINE_ENV, JUDGE_AGENT_RUN_FLAGS
from tests.harbor.engine import ImageWatch
from tests.harbor.scripted import ScriptedJudge

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MODEL = "claude-sonnet-4-5"
PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier")


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of the command and the 1-minute load average before → after it."""
    before = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"failed: {' '.join(argv[:3])}\n{tail}")
    return time.monotonic() - started, f"{before:.1f} → {os.getloadavg()[0]:.1f}"


def _seconds(timing: dict[str, str] | None) -> float | None:
    if not timing or not timing.get("started_at") or not timing.get("finished_at"):
        return None
    start = datetime.fromisoformat(timing["started_at"])
    return (datetime.fromisoformat(timing["finished_at"]) - start).total_seconds()


def phase_profile(job: Path) -> dict[str, float]:
    """Median seconds per Harbor phase over the job's trials; `other` is the rest of the
    trial (teardown: log ownership fix and compose down, mostly)."""
    per_phase: dict[str, list[float]] = {p: [] for p in (*PHASES, "other", "trial")}
    for path in sorted(job.glob("*/result.json")):
        result = json.loads(path.read_text())
        if result.get("exception_info"):
            raise SystemExit(f"{path.parent.name}: {result['exception_info']}")
        total = _seconds(result)
        assert total is not None, path
        spent = 0.0
        for phase in PHASES:
            seconds = _seconds(result.get(phase)) or 0.0
            per_phase[phase].append(seconds)
            spent += seconds
        per_phase["other"].append(total - spent)
        per_phase["trial"].append(total)
    return {p: statistics.median(v) for p, v in per_phase.items() if v}


def _check_floor(job: Path, cases: int) -> None:
    """Every trial of the `nop` job went the whole way: container up, no agent, verifier run
    (no verdict, so no reward: RewardFileNotFoundError), teardown."""
    results = [json.loads(p.read_text()) for p in sorted(job.glob("*/result.json"))]
    kinds = {(r.get("exception_info") or {}).get("exception_type") for r in results}
    if len(results) != cases or kinds != {"RewardFileNotFoundError"}:
        raise SystemExit(f"{job.name}: {len(results)} trials, exceptions {kinds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--concurrency", default="1,4")
    parser.add_argument("--modes", default="build,prebuilt")
    parser.add_argument("--floor", action="store_true",
                        help="also time Harbor's own `nop` agent over the prebuilt tasks")
    parser.add_argument("--image", default=os.environ.get("JUDGE_RUNNER_SANDBOX_IMAGE",
                                                          "judge-runner-judge:latest"))
    args = parser.parse_args()
    modes = [TaskBuild(m) for m in args.modes.split(",")]
    env = {**os.environ, **HARBOR_OFFLINE_ENV, "ANTHROPIC_API_KEY": "bench",
           "JUDGE_RUNNER_SANDBOX_IMAGE": args.image}
    rows: list[tuple[int, str, float, str]] = []
    profiles: dict[tuple[int, str], dict[str, float]] = {}
    builds: dict[tuple[int, str], int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-harbor-") as tmp:
        root = Path(tmp)
        examples = REPO / "bench" / "examples"
        import_trials([examples / "trials"], root / "dataset",
                      ImportOptions(task_dirs=[examples / "tasks"]))
        dataset = Dataset(root / "dataset")
        case_ids = dataset.case_ids()[: args.cases]
        (root / "cases.txt").write_text("\n".join(case_ids) + "\n")
        skill = load_skill(REPO / "judgeskills" / "v1")
        for mode in dict.fromkeys([*modes, *([TaskBuild.PREBUILT] if args.floor else [])]):
            export_tasks(dataset, case_ids, skill, root / f"tasks-{mode.value}",
                         ExportOptions(image=args.image, build=mode))
        server = FakeMessagesServer().start()
        server.responder = ScriptedJudge(dict.fromkeys(case_ids, "pass"))
        try:
            for n in (int(c) for c in args.concurrency.split(",")):
                eval_s, load = _timed(
                    [str(BIN / "judge-runner"), "eval", str(dataset.root), "--split",
                     str(root / "cases.txt"), "--judge", "agent", "--skill",
                     str(REPO / "judgeskills" / "v1"), "--model", MODEL, "--base-url",
                     server.base_url, "--sandbox", "docker", "-c", str(n), "--run-dir",
                     str(root / f"eval-{n}"), "--no-progress"], root, env)
                rows.append((n, "eval --sandbox docker", eval_s, load))
                for mode in modes:
                    job = f"{mode.value}-n{n}"
                    with ImageWatch(root / "jobs" / job) as watch:
                        harbor_s, load = _timed(
                            [str(BIN / "harbor"), "run", "-p",
                             str(root / f"tasks-{mode.value}"), "-a",
                             "judge_runner.harbor.agent:JudgeAgent", "-m", MODEL,
                             *JUDGE_AGENT_RUN_FLAGS, "--ak",
                             f"api_base={server.base_url}", "-e", "docker", "-o",
                             str(root / "jobs"), "--job-name", job, "-n", str(n), "-y", "-q"],
                            root, env)
                    rows.append((n, f"harbor run, {mode.value} tasks", harbor_s, load))
                    profiles[n, mode.value] = phase_profile(root / "jobs" / job)
                    builds[n, mode.value] = len(watch.built)
                if args.floor:
                    floor_s, load = _timed(
                        [str(BIN / "harbor"), "run", "-p", str(root / "tasks-prebuilt"), "-a",
                         "nop", "-e", "docker", "-o", str(root / "jobs"), "--job-name",
                         f"nop-n{n}", "-n", str(n), "-y", "-q"], root, env)
                    _check_floor(root / "jobs" / f"nop-n{n}", len(case_ids))
                    rows.append((n, "harbor run, prebuilt tasks, `nop` agent", floor_s, load))
        finally:
            server.stop()
    k = len(case_ids)
    print(f"{k} cases, scripted 4-turn judge session, no model latency\n")
    print("| concurrency | run | wall | per case | load (1 min) before → after |")
    print("|---|---|---|---|---|")
    for n, what, seconds, load in rows:
        print(f"| {n} | {what} | {seconds:.1f} s | {seconds / k:.2f} s | {load} |")
    print("\nMedian seconds per trial phase (Harbor's timings), and images built in the job:\n")
    print(f"| concurrency | tasks | {' | '.join(PHASES)} | other | trial | images built |")
    print("|---|---|" + "---|" * (len(PHASES) + 3))
    for (n, kind), profile in profiles.items():
        cells = " | ".join(f"{profile[p]:.2f}" for p in (*PHASES, "other", "trial"))
        print(f"| {n} | {kind} | {cells} | {builds[n, kind]} |")
    if any(count for (_, kind), count in builds.items() if kind == TaskBuild.PREBUILT.value):
        raise SystemExit("a prebuilt job built an image")


if __name__ == "__main__":
    main()
