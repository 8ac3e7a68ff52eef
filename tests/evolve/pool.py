"""A labeled dev pool and gate for evolution tests, with dev-only verifier evidence."""

from __future__ import annotations

import json
from pathlib import Path

from judge_runner.cases import Dataset, Domain, Label
from judge_runner.evolve.evaluate import JudgeForSkill, SkillEvaluator
from judge_runner.evolve.loop import Evolution
from judge_runner.evolve.optimizer import ModelOptimizer
from judge_runner.evolve.state import EvolveConfig
from judge_runner.models import RetryPolicy, make_client
from tests.runs.casebuild import Spec, write_dataset

SKILL_MD = """---
name: test-judge-skill
description: A judge skill used by the evolution tests.
version: "1"
---

# Judging

Pass a run unless a listed failure signal shows in its answer.
"""

# Fail answers carry one of two failure signals; pass answers carry none.
SIGNALS = ("missing-output", "traceback")
DOMAINS = (Domain.FINANCE, Domain.ENERGY, Domain.ROBOTICS)


def build_pool(
    root: Path, n_tasks: int = 6, per_task: int = 12, gate_fail: int = 27, gate_pass: int = 9
) -> tuple[Path, list[str], list[str]]:
    """Write the dataset; return (dataset dir, dev ids, gate ids). The gate holds `gate_fail`
    fail and `gate_pass` pass cases spread over the tasks; the rest is the dev pool. The
    answer also ends the trajectory, as the agent's final report."""
    specs: list[Spec] = []
    for t in range(n_tasks):
        for k in range(per_task):
            label = Label.PASS if k % 4 == 0 else Label.FAIL
            answer = "ok" if label is Label.PASS else f"{SIGNALS[k % 2]} in run {k}"
            specs.append(
                Spec(
                    case_id=f"t{t}-c{k:02d}",
                    task=f"family-{t}",
                    domain=DOMAINS[t % 3],
                    label=label,
                    answer=answer,
                    report=f"Finished: {answer}",
                )
            )
    dataset = write_dataset(root / "dataset", specs)
    for spec in specs:
        evidence = dataset / "evidence" / spec.case_id / "verifier"  # the importer's layout
        evidence.mkdir(parents=True)
        failed = (
            []
            if spec.label is Label.PASS
            else [
                {
                    "name": "test_outputs.py::test_result_matches_reference",
                    "status": "failed",
                    "message": f"AssertionError: reference value differs for {spec.case_id} run",
                }
            ]
        )
        ctrf = {"results": {"summary": {"tests": 2, "passed": 2 - len(failed)}, "tests": failed}}
        (evidence / "ctrf.json").write_text(json.dumps(ctrf), encoding="utf-8")
    fails = [s.case_id for s in specs if s.label is Label.FAIL]
    passes = [s.case_id for s in specs if s.label is Label.PASS]
    gate = sorted(fails[::2][:gate_fail] + passes[::2][:gate_pass])
    dev = sorted(s.case_id for s in specs if s.case_id not in set(gate))
    return dataset, dev, gate


def write_skill(skills_root: Path, extra: str = "") -> Path:
    skill = skills_root / "v1"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD + extra, encoding="utf-8")
    return skill


def model_evolution(
    config: EvolveConfig, run_dir: Path, make_judge: JudgeForSkill, base_url: str
) -> Evolution:
    """An evolution whose optimizer is a model reached through the real SDK at `base_url`."""
    client = make_client(
        base_url=base_url, retry=RetryPolicy(max_attempts=2, initial_wait_s=0.01, jitter_s=0)
    )
    ds = Dataset(Path(config.dataset))
    return Evolution(
        config=config,
        run_dir=run_dir,
        dataset=ds,
        evaluator=SkillEvaluator(ds, make_judge, run_dir, concurrency=config.concurrency),
        optimizer=ModelOptimizer(
            client, "fake-optimizer", run_dir / "optimizer" / "transcript.jsonl"
        ),
        skills_root=Path(config.skill).parent,
    )
