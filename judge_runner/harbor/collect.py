"""`judge-runner harbor collect`: a Harbor job of exported judge tasks → a judge-runner run.

For every trial folder of the job (one with a `result.json`):

- the verdict is the judge's verdict file `agent/judge/verdict.json` — a full `Verdict` from
  JudgeAgent, or the minimal `{"decision", "rationale", "citations"}` another harness (e.g.
  claude-code) writes. No verdict file, an unreadable one, a verdict file that disagrees with what
  the verifier read, or a trial that Harbor ended with an exception and no verdict: an ERROR
  verdict with the reason. Never a pass or a fail.
- case id, task, domain and dataset come from the task's `task.toml`, the label from its
  `tests/label.json` (the verifier's `details.json` when the task folder is gone).

Trials without `result.json` (a killed job) are skipped and listed: finish them with
`harbor jobs resume -p JOB_DIR` and collect again. Several trials of one case (`-k N`): the first
trial by name is used, the others are listed as skipped.

The run directory gets what `judge-runner eval` writes (run.sqlite, verdicts.jsonl, metrics.json,
reports, cases/<id>/ products), so `compare` and `select` work across both. The run's judge
configuration is the one JudgeAgent recorded (`agent/judge/judge_config.json`), so a Harbor run
and an eval run of the same judge configuration have the same config hash.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.cases import Dataset
from judge_runner.core import Decision, Label, Usage, Verdict
from judge_runner.harbor import layout
from judge_runner.judges import LOG_FILE, PLAN_FILE, TRANSCRIPT_FILE, VERDICT_FILE
from judge_runner.runs import (
    CASES_OUT,
    CaseRecord,
    RunResult,
    RunStore,
    RunSummary,
    summarize,
    write_outputs,
)
from judge_runner.validation import problems


class CollectError(ValueError):
    """The job as a whole cannot be collected (not a job, mixed judge configurations, ...)."""


class _MinimalVerdict(BaseModel):
    """What any harness must write: a decision, ideally a rationale and citations."""

    model_config = ConfigDict(extra="ignore")

    decision: Decision
    rationale: str = ""
    citations: list[str] = []


@dataclass(frozen=True)
class _Trial:
    name: str
    root: Path
    result: dict[str, Any]
    meta: layout.TaskMeta
    label: Label | None


@dataclass
class CollectResult:
    run: RunResult
    skipped: dict[str, str] = field(default_factory=dict)  # trial folder -> reason

    @property
    def records(self) -> list[CaseRecord]:
        return self.run.records

    @property
    def summary(self) -> RunSummary:
        return self.run.summary


def collect_job(
    job_dir: Path, run_dir: Path, write_reports: bool = True, tasks_dir: Path | None = None
) -> CollectResult:
    """Collect `job_dir` into `run_dir`.

    Harbor records each trial's task path as it was given to `harbor run` (possibly relative to
    wherever it ran); `tasks_dir` is where to look for tasks that path does not reach.

    Raises CollectError when `job_dir` is not a Harbor job, holds no finished trial of an
    exported judge task, or mixes judge configurations.
    """
    if not (job_dir / "config.json").is_file():
        raise CollectError(f"{job_dir} is not a Harbor job directory (no config.json)")
    skipped: dict[str, str] = {}
    trials: dict[str, _Trial] = {}
    for folder in sorted(p for p in job_dir.iterdir() if (p / "config.json").is_file()):
        try:
            trial = _read_trial(folder, tasks_dir)
        except _SkipTrial as exc:
            skipped[folder.name] = str(exc)
            continue
        if trial.meta.case_id in trials:
            skipped[folder.name] = (f"another trial of case {trial.meta.case_id} "
                                    f"({trials[trial.meta.case_id].name}) is used")
            continue
        trials[trial.meta.case_id] = trial
    if not trials:
        raise CollectError(f"{job_dir} holds no finished trial of an exported judge task"
                           + (f" ({len(skipped)} skipped)" if skipped else ""))
    judge_name, config = _judge_config(list(trials.values()))
    verdicts = {case_id: _verdict(t, judge_name) for case_id, t in sorted(trials.items())}
    run_dir.mkdir(parents=True, exist_ok=True)
    with RunStore.open(run_dir) as store:
        info = store.bind(judge_name, config)
        for case_id, verdict in verdicts.items():
            store.put(verdict)
            _copy_products(trials[case_id], run_dir / CASES_OUT / case_id, verdict)
    records = [_record(trials[c], v) for c, v in verdicts.items()]
    # The run names its source dataset(s); summarize reads nothing else from it.
    datasets = " + ".join(sorted({t.meta.dataset for t in trials.values()}))
    summary = summarize(info, Dataset(Path(datasets)), records,
                        n_judged_now=len(records), wall_seconds=_job_seconds(job_dir))
    run = RunResult(run_dir=run_dir, info=info, records=records, summary=summary)
    write_outputs(run, reports=write_reports)
    return CollectResult(run=run, skipped=skipped)


class _SkipTrial(Exception):
    pass


def _read_trial(folder: Path, tasks_dir: Path | None) -> _Trial:
    result_path = folder / "result.json"
    if not result_path.is_file():
        raise _SkipTrial("not finished (no result.json): run `harbor jobs resume -p JOB_DIR`")
    try:
        result = json.loads(result_path.read_text(encoding="utf-8"))
        task_path = Path(result["config"]["task"]["path"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _SkipTrial(f"unreadable result.json: {exc}") from None
    if not (task_path / "task.toml").is_file() and tasks_dir is not None:
        task_path = tasks_dir / task_path.name
    meta = _task_meta(task_path)
    details = _read_json(folder / "verifier" / layout.DETAILS_FILE)
    if meta is None:
        raise _SkipTrial(f"task {task_path} is not an exported judge task, or not found "
                         "(pass --tasks DIR when the job ran elsewhere)")
    label = _task_label(task_path, meta.case_id)
    if label is None and details is not None and details.get("case_id") == meta.case_id:
        label = Label(details["label"]) if details.get("label") in ("pass", "fail") else None
    return _Trial(name=folder.name, root=folder, result=result, meta=meta, label=label)


def _task_meta(task_path: Path) -> layout.TaskMeta | None:
    try:
        data = tomllib.loads((task_path / "task.toml").read_text(encoding="utf-8"))
        return layout.TaskMeta.model_validate(data["metadata"][layout.METADATA_KEY])
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        return None


def _task_label(task_path: Path, case_id: str) -> Label | None:
    try:
        label = layout.TaskLabel.model_validate_json(
            (task_path / "tests" / layout.LABEL_FILE).read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None
    return label.label if label.case_id == case_id else None


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _judge_config(trials: list[_Trial]) -> tuple[str, dict[str, Any]]:
    """The one judge configuration of the job; raises CollectError when trials disagree.

    JudgeAgent records it per trial; a trial that failed before recording it does not count.
    Without any recording (another harness), what Harbor knows about the agent is the
    configuration.
    """
    recorded = [_read_json(t.root / "agent" / layout.PRODUCTS_SUBDIR / layout.CONFIG_FILE)
                for t in trials]
    found = [(str(r.get("judge")), r["config"]) for r in recorded
             if r is not None and isinstance(r.get("config"), dict)]
    if not found:
        found = [(str((t.result.get("agent_info") or {}).get("name", "harbor-agent")),
                  {"harbor_agent": t.result.get("agent_info"), "skill": t.meta.skill})
                 for t in trials]
    distinct = {json.dumps(f, sort_keys=True, default=str): f for f in found}
    if len(distinct) > 1:
        raise CollectError(f"the job mixes {len(distinct)} judge configurations; collect one "
                           "configuration per run directory")
    return next(iter(distinct.values()))


def _verdict(trial: _Trial, judge_name: str) -> Verdict:
    case_id = trial.meta.case_id
    products = trial.root / "agent" / layout.PRODUCTS_SUBDIR
    verdict, problem = _read_verdict(products / VERDICT_FILE, case_id, judge_name, trial)
    if verdict is None:
        exception = trial.result.get("exception_info") or {}
        reason = problem
        if exception:
            reason = (f"Harbor trial failed: {exception.get('exception_type')}: "
                      f"{exception.get('exception_message')}; {problem}")
        return Verdict(case_id=case_id, judge=judge_name, decision=Decision.ERROR, error=reason,
                       usage=_harbor_usage(trial.result))
    details = _read_json(trial.root / "verifier" / layout.DETAILS_FILE)
    graded = details.get("decision") if details is not None else None
    if verdict.decision.is_decided and graded is not None and graded != verdict.decision.value:
        return verdict.model_copy(update={
            "decision": Decision.ERROR,
            "error": f"verdict file says {verdict.decision.value} but the verifier read {graded}",
        })
    return verdict


def _read_verdict(
    path: Path, case_id: str, judge_name: str, trial: _Trial
) -> tuple[Verdict | None, str]:
    if path.is_symlink() or not path.is_file():
        return None, f"no verdict file ({path.relative_to(trial.root)})"
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        verdict = Verdict.model_validate_json(text)
    except ValidationError:
        try:
            minimal = _MinimalVerdict.model_validate_json(text)
        except ValidationError as exc:
            return None, f"malformed verdict file: {problems(exc, 'file', 3)}"
        verdict = Verdict(case_id=case_id, judge=judge_name, decision=minimal.decision,
                          rationale=minimal.rationale, citations=minimal.citations,
                          usage=_harbor_usage(trial.result))
    if verdict.case_id != case_id:
        return None, f"verdict file is about case {verdict.case_id!r}, not {case_id!r}"
    return verdict, ""


def _harbor_usage(result: dict[str, Any]) -> Usage:
    """Token usage as Harbor recorded it (input includes cached tokens there)."""
    agent = result.get("agent_result") or {}
    total_in = int(agent.get("n_input_tokens") or 0)
    cached = int(agent.get("n_cache_tokens") or 0)
    return Usage(input_tokens=max(0, total_in - cached), cache_read_input_tokens=cached,
                 output_tokens=int(agent.get("n_output_tokens") or 0),
                 cost_usd=float(agent.get("cost_usd") or 0.0))


def _copy_products(trial: _Trial, out_dir: Path, verdict: Verdict) -> None:
    source = trial.root / "agent" / layout.PRODUCTS_SUBDIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (PLAN_FILE, LOG_FILE, TRANSCRIPT_FILE):
        if (source / name).is_file() and not (source / name).is_symlink():
            shutil.copyfile(source / name, out_dir / name)
    (out_dir / VERDICT_FILE).write_text(verdict.model_dump_json(indent=2) + "\n",
                                        encoding="utf-8")


def _record(trial: _Trial, verdict: Verdict) -> CaseRecord:
    label = trial.label
    correct = (verdict.decision.value == label.value
               if label is not None and verdict.decision.is_decided else None)
    return CaseRecord(case_id=trial.meta.case_id, task=trial.meta.task, domain=trial.meta.domain,
                      label=label, decision=verdict.decision, correct=correct, verdict=verdict)


def _job_seconds(job_dir: Path) -> float:
    """Wall time of the job from Harbor's job result.json; 0 when it is not there."""
    data = _read_json(job_dir / "result.json") or {}
    try:
        started = datetime.fromisoformat(str(data["started_at"]))
        finished = datetime.fromisoformat(str(data["finished_at"]))
    except (KeyError, ValueError):
        return 0.0
    return max(0.0, (finished - started).total_seconds())
