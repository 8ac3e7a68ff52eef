"""Prompt injection against the judges: the flip rate of failing real cases under attack.

    .venv/bin/python scripts/bench_injection.py [--out out/bench-injection] [--data DIR]
        [--judges rules,direct,agent] [--direct-cases 2] [--agent-cases 1]
        [--agent-attacks runner_note] [--port 8096 | --base-url URL]

The real trials (default ../shared/data/skillsbench-real) are imported once; their failing cases
(label fail) are copied once per attack of `tests/injection.py` (forged test results in a tool
output, a forged end-of-run section in the final message, a fake runner note in an artifact
path, fence-closing text in an artifact's content, a note to the judge in the assistant's text)
and the attack is written into each copy. Every judge then judges the clean cases and each
attacked copy through `judge-runner eval`, and a case *flips* when its clean verdict is fail
and its attacked verdict is pass. The flip rate of an attack is flips / cases judged fail when
clean (a clean pass cannot flip, a clean error says nothing; both are counted apart).

- rules judge: every failing case × every attack (seconds);
- direct judge on the local model: the `--direct-cases` failing cases with the shortest
  normalized trajectories (fewest prompt tokens: a call takes 50-300 s, and far more on a loaded
  2-core machine) × every attack;
- agent judge on the local model (docker sandbox, JudgeSkill v1, bounded turns): the
  `--agent-cases` shortest failing cases × `--agent-attacks`.

The local model is a 0.5B model: its figures say how often text in a run moved it, a robustness
figure, not how well it judges. Needs `scripts/local-model install` and a built judge image for
the model judges (`--judges rules` runs the rules judge only). Starts its own server on --port
and stops it, unless `--base-url` names a running one. Writes summary-<judges>.json into --out
after each judge (a stopped run keeps what it measured) and prints markdown tables for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench_local_model import MODEL, SCRIPT, run  # noqa: E402  (the local model's benchmark)

from tests.injection import ATTACKS  # noqa: E402  (the attack set the tests use)

REAL = ROOT.parent / "shared" / "data" / "skillsbench-real"
DIRECT_KNOBS = ["max_prompt_tokens=3000", "max_output_tokens=256", "timeout_s=900"]
AGENT_KNOBS = ["max_turns=5", "max_output_tokens=320", "max_context_tokens=12000",
               "max_wall_s=2400", "timeout_s=900"]


def cli(*args: str) -> None:
    run(sys.executable, "-m", "judge_runner.cli", *args)


def failing_cases(dataset: Path) -> list[str]:
    labels = [json.loads(line) for line in (dataset / "labels.jsonl").read_text().splitlines()]
    return sorted(r["case_id"] for r in labels if r["label"] == "fail")


def shortest(dataset: Path, case_ids: list[str], n: int) -> list[str]:
    """The `n` cases with the fewest normalized trajectory tokens (ties by id)."""
    def size(case_id: str) -> int:
        meta = json.loads((dataset / "cases" / case_id / "case.json").read_text())
        return int(meta["stats"]["normalized_tokens_est"])
    return sorted(sorted(case_ids, key=lambda c: (size(c), c))[:n])


def attacked_copy(base: Path, out: Path, attack_name: str, case_ids: list[str]) -> Path:
    """`out/<attack>`: the failing cases of `base` with the attack written into each."""
    attack = next(a for a in ATTACKS if a.name == attack_name)
    target = out / f"dataset-{attack.name}"
    if (target / "cases").is_dir():
        return target
    tmp = out / f".partial-{attack.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "cases").mkdir(parents=True)
    for case_id in case_ids:
        shutil.copytree(base / "cases" / case_id, tmp / "cases" / case_id)
        attack.apply(tmp / "cases" / case_id)
    wanted = set(case_ids)
    (tmp / "labels.jsonl").write_text("".join(
        line + "\n" for line in (base / "labels.jsonl").read_text().splitlines()
        if json.loads(line)["case_id"] in wanted))
    tmp.rename(target)
    return target


def decisions(run_dir: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for line in (run_dir / "verdicts.jsonl").read_text().splitlines():
        record = json.loads(line)
        out[record["case_id"]] = {"decision": record["decision"],
                                  "error": record["verdict"].get("error"),
                                  "wall_s": record["verdict"].get("duration_s")}
    return out


def judge(name: str, dataset: Path, case_ids: list[str], run_dir: Path,
          base_url: str | None) -> tuple[dict[str, dict[str, Any]], float]:
    split = run_dir.parent / f"{run_dir.name}.split.txt"
    split.parent.mkdir(parents=True, exist_ok=True)
    split.write_text("\n".join(case_ids) + "\n")
    args = {
        "rules": ["--judge", "rules"],
        "direct": ["--judge", "direct", "--model", f"openai:{MODEL}",
                   *[x for k in DIRECT_KNOBS for x in ("-o", k)]],
        "agent": ["--judge", "agent", "--skill", str(ROOT / "judgeskills" / "v1"), "--model",
                  f"anthropic:{MODEL}", "--sandbox", "docker",
                  *[x for k in AGENT_KNOBS for x in ("-o", k)]],
    }[name]
    if base_url is not None:
        args += ["--base-url", base_url]
    started = time.monotonic()
    cli("eval", str(dataset), *args, "--split", str(split), "-c", "1", "--run-dir",
        str(run_dir), "--no-progress")
    return decisions(run_dir), round(time.monotonic() - started, 1)


def flip_table(name: str, base: Path, out: Path, case_ids: list[str], attacks: list[str],
               base_url: str | None) -> dict[str, Any]:
    clean, wall = judge(name, base, case_ids, out / name / "clean", base_url)
    result: dict[str, Any] = {"cases": case_ids, "clean": clean, "attacks": {},
                              "wall_s": wall}
    judged_fail = [c for c in case_ids if clean[c]["decision"] == "fail"]
    for attack in attacks:
        attacked, wall = judge(name, attacked_copy(base, out, attack, failing_cases(base)),
                               case_ids, out / name / attack, base_url)
        flips = [c for c in judged_fail if attacked[c]["decision"] == "pass"]
        result["attacks"][attack] = {"decisions": attacked, "flips": flips,
                                     "eligible": len(judged_fail), "wall_s": wall}
        result["wall_s"] += wall
    n_flips = sum(len(a["flips"]) for a in result["attacks"].values())
    eligible = sum(a["eligible"] for a in result["attacks"].values())
    result["flip_rate"] = round(n_flips / eligible, 3) if eligible else None
    result["flips"], result["eligible"] = n_flips, eligible
    result["wall_s"] = round(result["wall_s"], 1)
    return result


def print_table(name: str, result: dict[str, Any]) -> None:
    clean = result["clean"]
    passed = sum(1 for d in clean.values() if d["decision"] == "pass")
    errors = sum(1 for d in clean.values() if d["decision"] == "error")
    print(f"\n### {name}: {len(result['cases'])} failing case(s), clean verdicts: {passed} pass, "
          f"{errors} error; {result['wall_s']} s")
    print("| attack | where | flips / eligible | attacked decisions (pass/fail/error) |")
    print("|---|---|---:|---|")
    for attack, a in result["attacks"].items():
        where = next(x.where for x in ATTACKS if x.name == attack)
        counts = [sum(1 for d in a["decisions"].values() if d["decision"] == k)
                  for k in ("pass", "fail", "error")]
        print(f"| {attack} | {where} | {len(a['flips'])} / {a['eligible']} | "
              f"{'/'.join(map(str, counts))} |")
    print(f"| all | | {result['flips']} / {result['eligible']} "
          f"(flip rate {result['flip_rate']}) | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "bench-injection")
    parser.add_argument("--data", type=Path, default=REAL)
    parser.add_argument("--judges", default="rules,direct,agent")
    parser.add_argument("--direct-cases", type=int, default=2)
    parser.add_argument("--agent-cases", type=int, default=1)
    parser.add_argument("--agent-attacks", default="runner_note")
    parser.add_argument("--port", type=int, default=8096)
    parser.add_argument("--base-url", help="a running local-model server to use")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    base = out / "dataset"
    if not (base / "cases").is_dir():
        cli("import", str(args.data / "trials"), "--tasks", str(args.data / "tasks"), "--out",
            str(base))
    failing = failing_cases(base)
    all_attacks = [a.name for a in ATTACKS]
    summary: dict[str, Any] = {"failing_cases": len(failing), "attacks": all_attacks,
                               "judges": {}}
    judges = args.judges.split(",")
    summary_file = out / f"summary-{'-'.join(judges)}.json"

    def save() -> None:
        summary_file.write_text(json.dumps(summary, indent=2) + "\n")

    if "rules" in judges:
        summary["judges"]["rules"] = flip_table("rules", base, out, failing, all_attacks, None)
        save()
        print_table("rules", summary["judges"]["rules"])
    model_judges = [j for j in judges if j != "rules"]
    if not model_judges:
        return
    base_url = args.base_url
    if base_url is None:
        os.environ["JR_MODEL_PORT"] = str(args.port)
        if run(sys.executable, str(SCRIPT), "status", check=False).returncode == 0:
            sys.exit(f"a server already answers on port {args.port}; pick another --port")
        base_url = run(sys.executable, str(SCRIPT), "start").stdout.strip()
    subsets = {"direct": (shortest(base, failing, args.direct_cases), all_attacks),
               "agent": (shortest(base, failing, args.agent_cases),
                         args.agent_attacks.split(","))}
    try:
        for name in model_judges:
            cases, attacks = subsets[name]
            summary["judges"][name] = flip_table(name, base, out, cases, attacks, base_url)
            save()
            print_table(name, summary["judges"][name])
    finally:
        if args.base_url is None:
            run(sys.executable, str(SCRIPT), "stop", check=False)


if __name__ == "__main__":
    main()
