"""`experiment estimate` against what the models then counted, per row.

Runs the scripted plan of tests/experiments (the bundled example trials; direct on the Messages
and Chat wires, a three-member panel across both, the checklist judge with the scripted
synthesizer's checklists) against the scripted servers of
tests/fakeapi, and, with --local-url, the offline plan's local-model row (first calls of each
case, read from the transcripts; a repair turn is outside the one-call estimate). Prints one
line per row: estimated input and output tokens (low..high), actual, and actual / rendered
prompt size (the estimate's point value, low / 0.8).

    .venv/bin/python scripts/bench_estimate.py [--local-url http://127.0.0.1:8093 --cases 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge_runner.experiments.estimate import INPUT_LOW  # noqa: E402
from judge_runner.models.recording import TRANSCRIPT, read_transcript  # noqa: E402
from tests.checklist.runs import synthesize  # noqa: E402
from tests.conftest import EXAMPLES  # noqa: E402
from tests.experiments import scripted  # noqa: E402
from tests.fakeapi import FakeChatServer, FakeMessagesServer  # noqa: E402


def cli(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = scripted.cli(args, cwd, env, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])


def line(name: str, est: dict[str, Any], prompt: int, output: int, calls: int) -> str:
    rendered = est["input_tokens"]["low"] / INPUT_LOW
    ratio = prompt / rendered if rendered else float("nan")
    inside = est["input_tokens"]["low"] <= prompt <= est["input_tokens"]["high"]
    return (f"| {name} | {est['input_tokens']['low']:,.0f}..{est['input_tokens']['high']:,.0f} "
            f"| {prompt:,} | {ratio:.2f} | {'yes' if inside else 'no'} "
            f"| {est['output_tokens']['low']:,.0f}..{est['output_tokens']['high']:,.0f} "
            f"| {output:,} | {calls} |")


def measure(tmp: Path, plan_text: str, env: dict[str, str], first_calls_only: bool) -> None:
    plan = tmp / "plan.toml"
    plan.write_text(plan_text)
    cli(["experiment", "estimate", str(plan), "--json", str(tmp / "est.json")], tmp, env)
    cli(["experiment", "run", str(plan), "--no-progress"], tmp, env)
    est = {r["row"]: r for r in json.loads((tmp / "est.json").read_text())["rows"]}
    name = plan_text.split('"')[1]
    run = json.loads((tmp / "runs" / f"experiment-{name}" / "run.json").read_text())
    for row in run["rows"]:
        if row["usage"]["calls"] == 0:
            continue
        if first_calls_only:
            firsts = [read_transcript(p)[0][0].usage
                      for p in sorted((tmp / row["run_dir"]).rglob(TRANSCRIPT))]
            prompt, output = sum(u.prompt_tokens for u in firsts), sum(u.output_tokens
                                                                      for u in firsts)
            calls = len(firsts)
        else:
            u = row["usage"]
            prompt = (u["input_tokens"] + u["cache_creation_input_tokens"]
                      + u["cache_read_input_tokens"])
            output, calls = u["output_tokens"], u["calls"]
        print(line(row["row"], est[row["row"]], prompt, output, calls), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--local-url", help="a running local model (scripts/local-model)")
    parser.add_argument("--cases", type=int, default=2, help="local-model cases")
    args = parser.parse_args()
    print("| row | input est. | input actual | actual / rendered | in range | output est. "
          "| output actual | calls |\n|---|---|---|---|---|---|---|---|")
    api, chat = FakeMessagesServer().start(), FakeChatServer().start()
    api.responder = scripted.answer
    chat.responder = scripted.answer
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = scripted.env(Path(tmp), api.base_url, chat.base_url)
            synthesize(api, EXAMPLES / "tasks", Path(tmp) / "checklists")
            api.responder = scripted.answer
            measure(Path(tmp), scripted.header() + scripted.MODEL_ROWS
                    + scripted.checklist_row(Path(tmp) / "checklists"), env, False)
    finally:
        api.stop()
        chat.stop()
    if args.local_url:
        text = (REPO / "bench" / "plans" / "offline.toml").read_text()
        text = text.replace("limit = 1", f"limit = {args.cases}")
        for rel in ('"../examples/trials"', '"../examples/tasks"', '"../../judgeskills/v1"',
                    '"../../judgeskills/v2"'):
            text = text.replace(rel, json.dumps(str((REPO / "bench" / "plans" /
                                                     json.loads(rel)).resolve())))
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "JUDGE_RUNNER_LOCAL_URL": args.local_url}
            measure(Path(tmp), text, env, True)


if __name__ == "__main__":
    main()
