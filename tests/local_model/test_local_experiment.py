"""The bundled offline plan (bench/plans/offline.toml) end to end on this machine: the rules
judge with JudgeSkill v1 and v2 over the bundled examples, and the local model's direct judge
on one case (capped prompt and answer), estimated first and then run; the estimate is compared
with the prompt tokens the model's server reported for each case's first call."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from judge_runner.experiments.estimate import INPUT_LOW
from judge_runner.models.recording import TRANSCRIPT, read_transcript
from tests.conftest import REPO
from tests.experiments.scripted import cli
from tests.local_model.conftest import LocalModel

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

PLAN = REPO / "bench" / "plans" / "offline.toml"
CLI_TIMEOUT_S = 900  # a hang guard only: each local call is bounded by the row's timeout_s


def _cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = cli(args, cwd, env, timeout=CLI_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def test_offline_plan_runs_and_its_estimate_holds(local_model: LocalModel,
                                                  tmp_path: Path) -> None:
    env = {**os.environ, "JUDGE_RUNNER_LOCAL_URL": local_model.base_url, "COLUMNS": "200"}
    estimated = tmp_path / "estimate.json"
    _cli(["experiment", "estimate", str(PLAN), "--json", str(estimated)], tmp_path, env)
    _cli(["experiment", "run", str(PLAN), "--no-progress"], tmp_path, env)

    run = json.loads((tmp_path / "runs" / "experiment-offline" / "run.json").read_text())
    rows = {r["row"]: r for r in run["rows"]}
    assert [rows[n]["cases"] for n in ("rules-v1", "rules-v2", "direct-local")] == [12, 12, 1]
    assert all(not r["not_judged"] and r["judged_now"] == r["cases"] for r in run["rows"])
    local = rows["direct-local"]
    verdicts = [json.loads(line) for line in
                (tmp_path / local["run_dir"] / "verdicts.jsonl").read_text().splitlines()]
    for record in verdicts:
        error = record["verdict"].get("error")
        assert record["decision"] in ("pass", "fail") or (
            error and error.startswith(("unparseable output:", "prompt too large:"))), record

    # The estimate against each case's first call (a repair turn, when the model's first answer
    # is unusable, is outside the one-call estimate and is counted apart).
    est = next(r for r in json.loads(estimated.read_text())["rows"] if r["row"] == "direct-local")
    firsts = [read_transcript(path)[0][0].usage for path in
              sorted((tmp_path / local["run_dir"]).rglob(TRANSCRIPT))]
    assert len(firsts) == 1
    prompt = sum(u.prompt_tokens for u in firsts)
    rendered = est["input_tokens"]["low"] / INPUT_LOW
    print(f"\ndirect-local: first calls' prompt tokens {prompt}, estimated "
          f"{est['input_tokens']['low']:.0f}..{est['input_tokens']['high']:.0f} "
          f"(ratio to the rendered size {prompt / rendered:.2f}); all calls "
          f"{local['usage']['calls']}, output {local['usage']['output_tokens']} tokens, "
          f"estimated {est['output_tokens']['low']:.0f}..{est['output_tokens']['high']:.0f}")
    assert est["input_tokens"]["low"] <= prompt <= est["input_tokens"]["high"]
    assert sum(u.output_tokens for u in firsts) <= est["output_tokens"]["high"]

    report = json.loads((tmp_path / "runs" / "experiment-offline" / "report.json").read_text())
    assert [m["row"] for m in report["main"]] == ["rules-v1", "rules-v2", "direct-local"]
    assert [v["version"] for v in report["versions"]] == ["v1", "v2"]
