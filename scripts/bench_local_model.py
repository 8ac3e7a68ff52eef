"""The local 0.5B model in the loop: judges on the bundled examples, and one evolution round.

    .venv/bin/python scripts/bench_local_model.py [--out out/bench-local] [--skip-evolve]

Needs `scripts/local-model install`; starts a server of its own (--port, default 8095) and stops
it at the end. Runs, each through the CLI against that llama-server:

1. `eval --judge agent` (skill v1, bounded turns and output) and `eval --judge direct` on every
   bundled example case: every case must end as pass, fail or a specific error; prints per-case
   turns, tokens, wall time and the decisions (quality is poor by design: a 0.5B model);
2. one bounded `evolve` round with the local model as optimizer and the rules judge on a
   small gate: the real rewrite goes through candidate validation and the gate, and is
   promoted or rejected with its recorded reason;
3. a `multi` panel of the same model over the Messages and the Chat Completions wire, on one
   case of each task;
4. the server's start time, memory and its prompt/generation speed from its own counters.

Writes `summary.json` into --out and prints a markdown summary for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "local-model"
MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
AGENT_KNOBS = ["max_turns=6", "max_output_tokens=320", "max_context_tokens=15000",
               "max_wall_s=600", "timeout_s=300"]
# The evolution round starts from the skill tests/local_model/test_local_evolve.py starts from
# (it runs one candidate of the same round in CI).
EVOLVE_SKILL = ROOT / "tests" / "local_model" / "evolve-skill"
DIRECT_KNOBS = ["max_prompt_tokens=6000", "max_output_tokens=256", "timeout_s=300"]
SPECIFIC = ("budget exhausted:", "stalled:", "unparseable output:", "context budget exhausted:",
            "prompt too large:")


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(cmd), cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-3000:]}")
    return done


def cli(*args: str) -> float:
    started = time.monotonic()
    run(sys.executable, "-m", "judge_runner.cli", *args)
    return time.monotonic() - started


def counters(base_url: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{base_url}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {name.removeprefix("llamacpp:"): float(value) for name, value in
            (line.split(" ", 1) for line in text.splitlines()
             if line.startswith("llamacpp:") and " " in line)}


def rate(metrics: dict[str, float], tokens: str, seconds: str) -> float | None:
    spent = metrics.get(seconds)
    return round(metrics[tokens] / spent, 1) if spent else None


def server_rss_mb(field: str) -> float | None:
    """The server's VmRSS (now) or VmHWM (peak) from /proc, in MB."""
    info = json.loads(run(sys.executable, str(SCRIPT), "path").stdout)
    port = info["base_url"].rsplit(":", 1)[1]
    pid_file = Path(info["cache"]) / f"server-{port}.pid"
    try:
        pid = int(pid_file.read_text())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return round(int(line.split()[1]) / 1024)
    except (OSError, ValueError):
        return None
    return None


def cases_of(run_dir: Path) -> list[dict[str, Any]]:
    rows = []
    for line in (run_dir / "verdicts.jsonl").read_text().splitlines():
        record = json.loads(line)
        verdict = record["verdict"]
        usage = verdict["usage"]
        error = verdict.get("error")
        rows.append({
            "case": record["case_id"], "label": record.get("label"),
            "decision": record["decision"], "error": error,
            "specific": error is None or error.startswith(SPECIFIC),
            "turns": verdict.get("details", {}).get("turns"),
            "prompt_tokens": usage["input_tokens"] + usage["cache_read_input_tokens"]
            + usage["cache_creation_input_tokens"],
            "output_tokens": usage["output_tokens"], "calls": usage["calls"],
            "failed_calls": usage.get("failed_calls", 0), "retries": usage["retries"],
            "wall_s": verdict["duration_s"],
        })
    return rows


def one_case_per_task(dataset: Path, out: Path) -> Path:
    """A split with the first case of each task: the panel makes two calls per case."""
    first: dict[str, str] = {}
    for case in sorted((dataset / "cases").iterdir()):
        task = json.loads((case / "case.json").read_text())["task"]
        first.setdefault(task, case.name)
    split = out / "panel-split.txt"
    split.write_text("\n".join(first.values()) + "\n")
    return split


def judge_run(name: str, dataset: Path, out: Path, base_url: str) -> dict[str, Any]:
    """One `eval` through the CLI; a rerun resumes the cases its run directory already holds."""
    args = {
        "agent": ["--judge", "agent", "--skill", str(ROOT / "judgeskills" / "v1"), "--model",
                  f"anthropic:{MODEL}", "--sandbox", "docker",
                  *[x for k in AGENT_KNOBS for x in ("-o", k)]],
        "direct": ["--judge", "direct", "--model", f"openai:{MODEL}",
                   *[x for k in DIRECT_KNOBS for x in ("-o", k)]],
        "multi": ["--judge", "multi", "--models", f"anthropic:{MODEL},openai:{MODEL}",
                  "--split", str(one_case_per_task(dataset, out)),
                  *[x for k in DIRECT_KNOBS for x in ("-o", k)]],
    }[name]
    run_dir = out / f"run-{name}"
    before = counters(base_url)
    wall = cli("eval", str(dataset), *args, "-c", "1", "--base-url", base_url, "--run-dir",
               str(run_dir), "--no-progress")
    after = counters(base_url)
    return {
        "wall_s": round(wall, 1), "cases": cases_of(run_dir),
        "server_prompt_tokens": after["prompt_tokens_total"] - before["prompt_tokens_total"],
        "server_output_tokens": after["tokens_predicted_total"]
        - before["tokens_predicted_total"],
    }


def evolve_round(dataset: Path, out: Path, base_url: str) -> dict[str, Any]:
    """One round, one candidate per strategy (three optimizer calls), rules judge on the gate."""
    ids = sorted(p.name for p in (dataset / "cases").iterdir() if p.is_dir())
    bench = out / "evolve-splits"
    bench.mkdir(parents=True, exist_ok=True)
    (bench / "dev.txt").write_text("\n".join(ids) + "\n")
    (bench / "gate.txt").write_text("\n".join(ids[: max(4, len(ids) // 2)]) + "\n")
    skill = out / "evolve-skills" / "v1"
    if skill.parent.exists():
        shutil.rmtree(skill.parent)  # a promotion of an earlier run would be v2 already
    skill.mkdir(parents=True)
    shutil.copy(EVOLVE_SKILL / "SKILL.md", skill / "SKILL.md")
    shutil.copy(ROOT / "judgeskills" / "v1" / "checks.toml", skill / "checks.toml")
    run_dir = out / "evolve"
    shutil.rmtree(run_dir, ignore_errors=True)
    wall = cli("evolve", "--skill", str(skill), "--dev", str(bench / "dev.txt"), "--gate",
               str(bench / "gate.txt"), "--dataset", str(dataset), "--judge", "rules",
               "--optimizer", "model", "--optimizer-model", f"anthropic:{MODEL}",
               "--base-url", base_url, "--rounds", "1", "--max-candidates", "3",
               "--sample-size", str(len(ids)), "--sandbox", "none",
               "--optimizer-max-tokens", "600", "--brief-tokens", "400",
               "--run-dir", str(run_dir), "--concurrency", "2")
    state = json.loads((run_dir / "state.json").read_text())
    candidates = [{k: c.get(k) for k in ("id", "status", "reason", "rationale")}
                  | {"gate_score": (c.get("gate") or {}).get("gate_score")}
                  for c in state["candidates"]]
    initial = (state.get("initial_gate") or {}).get("gate_score")
    return {"wall_s": round(wall, 1), "initial_gate_score": initial, "candidates": candidates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-local")
    parser.add_argument("--skip-evolve", action="store_true")
    parser.add_argument("--port", type=int, default=8095,
                        help="port of the server this benchmark starts (and stops)")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    # A server of its own: nobody else's requests in its counters, start and memory measured.
    os.environ["JR_MODEL_PORT"] = str(args.port)
    if run(sys.executable, str(SCRIPT), "status", check=False).returncode == 0:
        sys.exit(f"a server already answers on port {args.port}; pick another --port")
    start_s = time.monotonic()
    base_url = run(sys.executable, str(SCRIPT), "start").stdout.strip()
    start_s = time.monotonic() - start_s
    rss_at_start = server_rss_mb("VmRSS")
    try:
        dataset = out / "dataset"
        if not (dataset / "cases").is_dir():
            cli("import", str(ROOT / "bench/examples/trials"), "--tasks",
                str(ROOT / "bench/examples/tasks"), "--out", str(dataset))
        summary: dict[str, Any] = {"judges": {}}
        for name in ("agent", "direct"):
            summary["judges"][name] = judge_run(name, dataset, out, base_url)
        if not args.skip_evolve:
            summary["evolve"] = evolve_round(dataset, out, base_url)
        summary["judges"]["multi"] = judge_run("multi", dataset, out, base_url)
        speed = counters(base_url)
        summary["server"] = {"start_to_healthy_s": round(start_s, 1),
                             "rss_after_start_mb": rss_at_start,
                             "peak_rss_mb": server_rss_mb("VmHWM"),
                             # cumulative counters (the *_tokens_seconds gauges are rates
                             # since the previous /metrics read, 0 when nothing ran since)
                             "prompt_tok_s": rate(speed, "prompt_tokens_total",
                                                  "prompt_seconds_total"),
                             "gen_tok_s": rate(speed, "tokens_predicted_total",
                                               "tokens_predicted_seconds_total")}
    finally:
        run(sys.executable, str(SCRIPT), "stop", check=False)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    for name, result in summary["judges"].items():
        print(f"\n### {name}: {len(result['cases'])} cases in {result['wall_s']} s")
        print("| case | label | decision | turns | tokens in / out | calls (failed) | wall s |"
              " error |")
        print("|---|---|---|---:|---:|---:|---:|---|")
        for c in result["cases"]:
            print(f"| {c['case']} | {c['label']} | {c['decision']} | {c['turns'] or ''} | "
                  f"{c['prompt_tokens']:,} / {c['output_tokens']:,} | {c['calls']} "
                  f"({c['failed_calls']}) | {c['wall_s']:.0f} | {c['error'] or ''} |")
    print("\nserver:", json.dumps(summary["server"]))
    if "evolve" in summary:
        evolve = summary["evolve"]
        print(f"\n### evolve: 1 round in {evolve['wall_s']} s, incumbent gate G "
              f"{evolve['initial_gate_score']}")
        print("| candidate | status | gate G | reason |")
        print("|---|---|---:|---|")
        for c in evolve["candidates"]:
            reason = (c["reason"] or "").replace("|", "/").replace(str(out), "OUT")
            print(f"| {c['id']} | {c['status']} | {c['gate_score'] or ''} | {reason} |")


if __name__ == "__main__":
    main()
