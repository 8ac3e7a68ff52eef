"""Benchmark what Harbor adds per case over `judge-runner eval`, on the local Docker engine.

    .venv/bin/python scripts/bench_harbor.py [--cases 4] [--concurrency 1,4]

Same bundled cases, same scripted judge session (plan, one bash command, one file read, one
inspection, verdict) against the instant fake Messages API, same judge image. For each
concurrency: wall time of `judge-runner eval --sandbox docker` and of `harbor run` with
JudgeAgent (each task's image build, compose up/down, verifier), per case. No model latency is
included. Needs Docker, the judge image (scripts/build-images) and the harbor extra.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.cases.dataset import Dataset
from judge_runner.harbor.export import ExportOptions, export_tasks
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.skills import load_skill
from tests.fakeapi import FakeMessagesServer
from tests.harbor.scripted import ScriptedJudge

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MODEL = "claude-sonnet-4-5"


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = done.stdout[-2000:] + done.stderr[-2000:]
        raise SystemExit(f"failed: {' '.join(argv[:3])}\n{tail}")
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--concurrency", default="1,4")
    parser.add_argument("--image", default=os.environ.get("JUDGE_RUNNER_SANDBOX_IMAGE",
                                                          "judge-runner-judge:latest"))
    args = parser.parse_args()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "ANTHROPIC_API_KEY": "bench",
           "JUDGE_RUNNER_SANDBOX_IMAGE": args.image}
    with tempfile.TemporaryDirectory(prefix="bench-harbor-") as tmp:
        root = Path(tmp)
        examples = REPO / "bench" / "examples"
        import_trials([examples / "trials"], root / "dataset",
                      ImportOptions(task_dirs=[examples / "tasks"]))
        dataset = Dataset(root / "dataset")
        case_ids = dataset.case_ids()[: args.cases]
        (root / "cases.txt").write_text("\n".join(case_ids) + "\n")
        export_tasks(dataset, case_ids, load_skill(REPO / "judgeskills" / "v1"), root / "tasks",
                     ExportOptions(image=args.image))
        server = FakeMessagesServer().start()
        server.responder = ScriptedJudge(dict.fromkeys(case_ids, "pass"))
        rows = []
        try:
            for n in (int(c) for c in args.concurrency.split(",")):
                eval_s = _timed(
                    [str(BIN / "judge-runner"), "eval", str(dataset.root), "--split",
                     str(root / "cases.txt"), "--judge", "agent", "--skill",
                     str(REPO / "judgeskills" / "v1"), "--model", MODEL, "--base-url",
                     server.base_url, "--sandbox", "docker", "-c", str(n), "--run-dir",
                     str(root / f"eval-{n}"), "--no-progress"], root, env)
                harbor_s = _timed(
                    [str(BIN / "harbor"), "run", "-p", str(root / "tasks"), "-a",
                     "judge_runner.harbor_agent:JudgeAgent", "-m", MODEL, "--ak",
                     f"api_base={server.base_url}", "-e", "docker", "-o", str(root / "jobs"),
                     "--job-name", f"n{n}", "-n", str(n), "-y", "-q"], root, env)
                rows.append((n, eval_s, harbor_s))
        finally:
            server.stop()
    k = len(case_ids)
    print(f"{k} cases, scripted 4-turn judge session, no model latency\n")
    print("| concurrency | eval wall | eval per case | harbor run wall | harbor per case |")
    print("|---|---|---|---|---|")
    for n, eval_s, harbor_s in rows:
        print(f"| {n} | {eval_s:.1f} s | {eval_s / k:.2f} s | {harbor_s:.1f} s "
              f"| {harbor_s / k:.2f} s |")


if __name__ == "__main__":
    main()
