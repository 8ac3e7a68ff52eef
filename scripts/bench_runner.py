#!/usr/bin/env python3
"""Benchmark the evaluation runner (judge_runner.runs.runner) itself.

The judge is scripted: per case it opens a sandbox on the case package (Docker when an engine
answers, else local; `--sandbox none` skips it), runs one command in it, makes one call to a
scripted model that sleeps a fixed latency and answers instantly otherwise, and writes its plan,
log and verdict. Everything else — thread pool, store commits, progress, outputs, reports — is
the real runner. Cases are the real SkillsBench trials imported into a temporary dataset, copied
under new ids until there are enough.

1. Overhead: latency 0, concurrency 1 → seconds per case (target ≤ 1.5 s) and cases/s.
2. Scaling: latency 0.5 s, 36 cases, concurrency 1/4/16 → speedup over concurrency 1, against
   the ideal 36 / ceil(36 / c) (16 workers need 3 waves for 36 cases, so the ideal is 12×);
   target ≥ 80 % of ideal at 16.

    .venv/bin/python scripts/bench_runner.py [--sandbox auto|docker|local|none] [--cases 36]

Prints a JSON summary; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from judge_runner import log
from judge_runner.cases import CasePackage, Dataset
from judge_runner.cases.models import CaseMeta, Trajectory
from judge_runner.ingest.importer import ImportOptions, import_trials
from judge_runner.judges.base import Decision, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.products import write_products
from judge_runner.models.base import ModelRequest, ModelResponse, Usage
from judge_runner.runs.runner import run_eval
from judge_runner.sandbox.select import open_sandbox, resolve_kind

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "skillsbench-real"
OVERHEAD_TARGET_S = 1.5
EFFICIENCY_TARGET = 0.8


class ScriptedModel:
    """A ModelClient that waits `latency` seconds and answers with a fixed text block."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def complete(self, request: ModelRequest) -> ModelResponse:
        time.sleep(self.latency)
        return ModelResponse(id="scripted", content=[{"type": "text", "text": "ok"}],
                             stop_reason="end_turn",
                             usage=Usage(input_tokens=1000, output_tokens=50, calls=1))


class ScriptedJudge:
    name = "bench-scripted"

    def __init__(self, model: ScriptedModel, sandbox: str) -> None:
        self.model = model
        self.sandbox = sandbox

    def config(self) -> dict[str, Any]:
        return {"sandbox": self.sandbox, "latency": self.model.latency}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        listing = ""
        if self.sandbox != "none":
            with open_sandbox(self.sandbox, case) as box:
                listing = box.exec("ls -R /case | wc -l", timeout=30).stdout.strip()
        response = self.model.complete(ModelRequest(
            model="scripted", system=[{"type": "text", "text": "judge"}],
            messages=[{"role": "user", "content": case.instruction[:2000]}]))
        # a deterministic decision that depends on the case, not on its label
        decision = (Decision.PASS if hashlib.sha256(case.id.encode()).digest()[0] % 2
                    else Decision.FAIL)
        plan = Plan(items=[PlanItem(id="P1", what="list the case", where="/case",
                                    support="files present", refute="nothing there")])
        log = [Inspection(id="I1", plan_item="P1", check="ls -R /case | wc -l",
                          finding=f"{listing or 'no sandbox'} entries",
                          outcome=Outcome.INCONCLUSIVE)]
        verdict = Verdict(case_id=case.id, judge=self.name, decision=decision,
                          rationale="scripted", citations=["I1"], usage=response.usage)
        write_products(out_dir, plan, log, verdict)
        return verdict


def make_dataset(root: Path, n: int) -> Dataset:
    """Real trials imported, then case folders copied under new ids until there are `n`."""
    import_trials([REAL_DATA / "trials"], root, ImportOptions(task_dirs=[REAL_DATA / "tasks"]))
    ds = Dataset(root)
    originals = ds.case_ids()
    for i in range(n - len(originals)):
        src = ds.case(originals[i % len(originals)])
        new_id = f"{src.id}-copy{i}"
        dst = ds.cases_dir / new_id
        shutil.copytree(src.root, dst)
        meta = CaseMeta.model_validate_json((dst / "case.json").read_text())
        (dst / "case.json").write_text(meta.model_copy(update={"id": new_id}).model_dump_json())
        traj = Trajectory.model_validate_json((dst / "trajectory.json").read_text())
        (dst / "trajectory.json").write_text(
            traj.model_copy(update={"case_id": new_id}).model_dump_json())
    return ds


def timed_run(ds: Dataset, ids: list[str], work: Path, latency: float, sandbox: str,
              concurrency: int) -> float:
    run_dir = Path(tempfile.mkdtemp(dir=work, prefix=f"run-c{concurrency}-"))
    started = time.perf_counter()
    run_eval(ScriptedJudge(ScriptedModel(latency), sandbox), ds, ids, run_dir,
             concurrency=concurrency, progress=False)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", default="auto", help="auto | docker | local | none")
    parser.add_argument("--cases", type=int, default=36)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    args = parser.parse_args()
    log.configure(level="warning")  # the importer's per-trial debug lines are not the point
    sandbox = args.sandbox if args.sandbox == "none" else resolve_kind(args.sandbox)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as tmp:
        work = Path(tmp)
        ds = make_dataset(work / "dataset", args.cases)
        ids = ds.case_ids()[: args.cases]
        overhead_wall = timed_run(ds, ids, work, 0.0, sandbox, 1)
        scaling = {c: timed_run(ds, ids, work, args.latency, sandbox, c)
                   for c in args.concurrency}
    base = scaling[min(scaling)]
    rows = {}
    for c, wall in scaling.items():
        ideal = len(ids) / math.ceil(len(ids) / c)
        rows[str(c)] = {"wall_s": round(wall, 2), "speedup": round(base / wall, 2),
                        "ideal": round(ideal, 2), "efficiency": round(base / wall / ideal, 3)}
    per_case = overhead_wall / len(ids)
    top = rows[str(max(scaling))]
    targets = {"overhead_ok": per_case <= OVERHEAD_TARGET_S,
               "efficiency_ok": top["efficiency"] >= EFFICIENCY_TARGET}
    result = {
        "cases": len(ids), "sandbox": sandbox, "latency_s": args.latency,
        "overhead_s_per_case": round(per_case, 4), "cases_per_s": round(1 / per_case, 2),
        "scaling": rows, "targets": targets,
    }
    print(json.dumps(result, indent=2))
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
