"""The judge skill and the model-driven evolution of the evolution tests (their labelled pool and
gate is `tests.casebuilder.dev_pool`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge_runner.cases import Dataset
from judge_runner.evolve.evaluate import JudgeForSkill, SkillEvaluator
from judge_runner.evolve.loop import Evolution
from judge_runner.evolve.optimizer import ModelOptimizer
from judge_runner.evolve.state import EvolveConfig
from judge_runner.models import RetryPolicy, make_client

OPTIMIZER_MODEL = "fake-optimizer"
SKILL_MD = """---
name: test-judge-skill
description: A judge skill used by the evolution tests.
version: "1"
---

# Judging

Pass a run unless a listed failure signal shows in its answer.
"""


def write_skill(skills_root: Path, extra: str = "") -> Path:
    skill = skills_root / "v1"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD + extra, encoding="utf-8")
    return skill


def model_evolution(
    pool: tuple[Path, list[str], list[str]],
    skill: Path,
    run_dir: Path,
    make_judge: JudgeForSkill,
    optimizer_url: str,
    **knobs: Any,
) -> Evolution:
    """An evolution of `skill` over `pool` (dataset dir, dev ids, gate ids, as `dev_pool` gives
    them) whose optimizer is a model reached through the real SDK at `optimizer_url`, judging two
    cases at a time. `knobs`: the other EvolveConfig fields (judge, rounds, seed...)."""
    dataset_dir, dev, gate = pool
    config = EvolveConfig(dataset=str(dataset_dir), skill=str(skill), optimizer="model",
                          optimizer_model=OPTIMIZER_MODEL, dev_ids=dev, gate_ids=gate,
                          concurrency=2, **knobs)
    client = make_client(
        base_url=optimizer_url, retry=RetryPolicy(max_attempts=2, initial_wait_s=0.01, jitter_s=0)
    )
    ds = Dataset(Path(config.dataset))
    return Evolution(
        config=config,
        run_dir=run_dir,
        dataset=ds,
        evaluator=SkillEvaluator(ds, make_judge, run_dir, concurrency=config.concurrency),
        optimizer=ModelOptimizer(
            client, OPTIMIZER_MODEL, run_dir / "optimizer" / "transcript.jsonl"
        ),
        skills_root=Path(config.skill).parent,
    )
