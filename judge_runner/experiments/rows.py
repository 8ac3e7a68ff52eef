"""From a plan to what is judged: the plan's cases, each row's judge options, its judge and its
run directory (the one `eval` would use for the same configuration and split)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from judge_runner.cases import Dataset
from judge_runner.experiments.plan import Plan, PlanError, Row, expand
from judge_runner.judges import NO_SKILL, Judge, JudgeOptions, build_judge, check_options
from judge_runner.runs import run_dir_name
from judge_runner.sandbox import SandboxKind
from judge_runner.splits import resolve_split

DATASET_DIR = "dataset"  # where a plan's trials are imported, inside its output folder


@dataclass(frozen=True)
class PlanCases:
    dataset: Dataset
    split: str  # the split's name, part of each row's run directory name
    case_ids: list[str]

    def of(self, row: Row) -> list[str]:
        ids = sorted(self.case_ids)
        return ids[: row.limit] if row.limit is not None else ids


def plan_cases(plan: Plan, *, import_trials: bool = True) -> PlanCases:
    """The dataset and split the plan names. Trials are imported (deterministically, so a rerun
    finds the same case ids) into OUTPUT/dataset; with `import_trials` False an earlier import
    is used as it is. Raises PlanError when the data or the split cannot be read."""
    if plan.dataset is not None:
        dataset = Dataset(plan.path(plan.dataset))
    else:
        dataset = Dataset(plan.output_dir / DATASET_DIR)
        if import_trials or not dataset.cases_dir.is_dir():
            _import(plan, dataset.root)
    if not dataset.cases_dir.is_dir():
        raise PlanError(f"{plan.source}: dataset {dataset.root} has no cases/ folder")
    try:
        split, case_ids = resolve_split(dataset, plan.split,
                                        plan.path(plan.bench) if plan.bench else None)
    except (OSError, ValueError) as exc:
        raise PlanError(f"{plan.source}: split: {exc}") from None
    return PlanCases(dataset, split, sorted(dict.fromkeys(case_ids)))


def _import(plan: Plan, target: Path) -> None:
    from judge_runner.ingest import ImportOptions, OutputDirError, import_trials

    try:
        import_trials([plan.path(t) for t in plan.trials], target,
                      ImportOptions(task_dirs=[plan.path(t) for t in plan.tasks]))
    except (OutputDirError, ValueError, OSError) as exc:
        raise PlanError(f"{plan.source}: importing the plan's trials: {exc}") from None


def row_options(plan: Plan, row: Row) -> JudgeOptions:
    """The judge options of a row, as the same flags on `eval` would give them. Raises
    PlanError for an unknown sandbox kind, an unset environment variable, a missing
    calibration file or calibration this version cannot pass on."""
    where = f"{plan.source}: rows.{row.name}"
    sandbox = None
    if row.sandbox is not None:
        try:
            sandbox = SandboxKind(row.sandbox)
        except ValueError:
            raise PlanError(f"{where}.sandbox: unknown sandbox kind {row.sandbox!r}; expected "
                            f"one of {', '.join(k.value for k in SandboxKind)}") from None
    skill: Path | Any = None
    if row.skill is not None:
        skill = NO_SKILL if row.skill == NO_SKILL.value else plan.path(Path(row.skill))
    extra: dict[str, JsonValue] = dict(row.options)
    urls = extra.get("base_urls")
    if isinstance(urls, dict):
        extra["base_urls"] = {k: expand(v, f"{where}.options.base_urls") if isinstance(v, str)
                              else v for k, v in urls.items()}
    fields: dict[str, Any] = {}
    if row.calibration is not None:
        fields.update(calibration_field(plan, row))
    return JudgeOptions(
        skill=skill, model=row.model, models=list(row.models),
        base_url=expand(row.base_url, f"{where}.base_url") if row.base_url else None,
        sandbox=sandbox, allow_abstain=row.allow_abstain, extra=extra, **fields)


def calibration_field(plan: Plan, row: Row) -> dict[str, Any]:
    """The row's calibration file(s) as the judge options carry them: what `eval --calibration`
    gives the judge (one file, or one per cascade stage). PlanError when a file is missing."""
    given = row.calibration
    assert given is not None
    paths = [plan.path(p) for p in (given if isinstance(given, list) else [given])]
    for path in paths:
        if not path.is_file():
            raise PlanError(f"{plan.source}: rows.{row.name}.calibration: {path} is not a file")
    return {"calibration": paths}


def check_row(plan: Plan, row: Row) -> None:
    """The row's options fit its judge (no client, no sandbox made); PlanError otherwise."""
    try:
        check_options(row.judge, row_options(plan, row))
    except PlanError:
        raise
    except ValueError as exc:
        raise PlanError(f"{plan.source}: rows.{row.name}: {exc}") from None


def build_row(plan: Plan, row: Row) -> Judge:
    """The row's judge; PlanError for what `eval` reports as a configuration problem."""
    from judge_runner.models import ModelError

    try:
        return build_judge(row.judge, row_options(plan, row))
    except PlanError:
        raise
    except (ValueError, OSError, ModelError) as exc:
        raise PlanError(f"{plan.source}: rows.{row.name}: {exc}") from None


def row_run_dir(plan: Plan, judge: Judge, split: str) -> Path:
    """OUTPUT/<judge>-<split>-<config hash>: the directory `eval --split SPLIT` run from the
    plan's folder with the same options writes to when OUTPUT is `runs`."""
    return plan.output_dir / run_dir_name(judge.name, judge.config(), split)


def providers_of(row: Row) -> list[str]:
    """The providers whose models a row calls (by name prefix), for the per-provider limits."""
    from judge_runner.models import split_model

    names = [m for m in [row.model, *row.models] if m]
    return sorted({split_model(m)[0].name for m in names})
