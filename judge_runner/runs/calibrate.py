"""`calibrate`: a Calibration from a finished run over labelled dev cases.

Every labelled dev case with a confidence and a (forced) decision is scored right or wrong
against its label; `judge_runner.calibration.select_threshold` picks the threshold. Errors,
unlabelled cases and verdicts without a confidence are left out and counted.

The rules judge with log-odds scoring first has its combination — the checks' weights, scale
and offset — fitted on the dev run itself, since the skill's numbers were set and fitted on
other data. A threshold chosen on the cases that fitted the score would void the guarantee, so
the tasks are split in two by a seeded hash: the cases of one half fit the combination
(`judges.rules.calibrate.fit`), the cases of the other half, scored with that fit, choose the
threshold. Both read each case's check findings from its inspection log in the run directory
(`cases/<case id>/inspection_log.jsonl`); a case whose log is missing or unreadable is left
out. A cascade is calibrated stage by stage: calibrate a dev run of each stage's judge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from judge_runner.calibration import (
    Calibration,
    RulesFit,
    Scored,
    forced_decision,
    judge_config_hash,
    quality,
    select_threshold,
)
from judge_runner.core import Decision, Label, Outcome
from judge_runner.judges import (
    LOG_FILE,
    RULES_PRIOR,
    DevResult,
    RuleSet,
    ScoreMethod,
    fit_combination,
    read_log,
    recombine,
)
from judge_runner.log import get_logger
from judge_runner.runs.records import CASES_OUT, CaseRecord, load_records, load_summary
from judge_runner.validation import in_one_line

log = get_logger(__name__)

Point = Callable[[CaseRecord], tuple[Decision, float] | None]


class CalibrateError(ValueError):
    """A run that cannot be calibrated (wrong judge, wrong skill, nothing labelled)."""


def calibrate_run(run_dir: Path, *, alpha: float, delta: float, rules: RuleSet | None = None,
                  rules_sha256: str | None = None, seed: int = 0) -> Calibration:
    """The calibration of the run in `run_dir` at agreement 1 − `alpha` with confidence
    1 − `delta`. For a rules run, `rules` is the skill's rule set and `rules_sha256` the hash
    of its checks.toml, which must be the one the run was judged with."""
    summary = load_summary(run_dir)
    records = load_records(run_dir)
    if summary.judge == "cascade":
        raise CalibrateError(f"{run_dir} is a cascade run: calibrate a dev run of each stage's "
                             "judge and give the files to the cascade in stage order")
    labelled = [r for r in records if r.label is not None]
    if not labelled:
        raise CalibrateError(f"{run_dir}: no labelled case; calibration needs labelled dev "
                             "cases")
    common = {"judge": summary.judge, "config_hash": judge_config_hash(summary.judge,
                                                                       summary.config),
              "alpha": alpha, "delta": delta, "source_run": str(run_dir)}
    refit = (summary.judge == "rules" and rules is not None
             and rules.score.method is ScoreMethod.LOG_ODDS)
    if (summary.judge == "rules" and rules is not None
            and rules_sha256 != summary.config.get("rules_sha256")):
        raise CalibrateError(f"{run_dir} was judged with another checks.toml "
                             "(rules_sha256 differs): give the skill it was run with")
    if not refit:
        scored, left_out = _scored(records, _judged)
        tasks = sorted({r.task or "" for r in labelled})
        return _calibration(scored, left_out, tasks, common, None, _stated(records))
    assert rules is not None
    fit_tasks, threshold_tasks = split_tasks(sorted({r.task or r.case_id for r in labelled}),
                                             seed)
    fit_side = [r for r in labelled if (r.task or r.case_id) in fit_tasks]
    cases = [c for r in fit_side if (c := _dev_result(run_dir, r)) is not None]
    fitted = fit_combination(rules, cases, RULES_PRIOR)
    held = [r for r in records if r.label is None or (r.task or r.case_id) in threshold_tasks]
    scored, left_out = _scored(held, _refitted(run_dir, fitted.rules))
    fit = RulesFit(scale=fitted.rules.score.scale, offset=fitted.rules.score.offset,
                   weights=fitted.weights, support_weights=fitted.support_weights,
                   prior=RULES_PRIOR, fit_cases=len(cases), fit_tasks=sorted(fit_tasks))
    return _calibration(scored, left_out + len(fit_side), sorted(threshold_tasks), common, fit)


def _calibration(scored: list[Scored], left_out: int, tasks: list[str], common: dict[str, object],
                 fit: RulesFit | None, stated: list[Scored] | None = None) -> Calibration:
    alpha, delta = float(common["alpha"]), float(common["delta"])  # type: ignore[arg-type]
    chosen = select_threshold(scored, alpha, delta)
    return Calibration(
        judge=str(common["judge"]), config_hash=str(common["config_hash"]), alpha=alpha,
        delta=delta, threshold=chosen.threshold, n=len(scored), n_left_out=left_out,
        coverage=chosen.coverage, dev_agreement=chosen.agreement, tests=chosen.tests,
        min_n=chosen.min_n,
        rules_fit=fit, threshold_tasks=tasks, source_run=str(common["source_run"]),
        quality=quality(scored), stated_quality=quality(stated) if stated else None)


def _stated(records: Sequence[CaseRecord]) -> list[Scored]:
    """For runs of simulated annotators (details `votes` and `stated`, one entry per
    annotator): the first annotator's decision and its own stated confidence, on the labelled
    cases the vote decided, so that the vote share and a single stated confidence are compared
    on the same cases. Empty for other runs."""
    out: list[Scored] = []
    for r in records:
        votes, stated = r.verdict.details.get("votes"), r.verdict.details.get("stated")
        if (r.label is None or r.decision is Decision.ERROR or r.verdict.confidence is None
                or not isinstance(votes, list) or not isinstance(stated, list)
                or len(votes) < 2 or len(stated) != len(votes)):
            continue
        vote, confidence = votes[0], stated[0]
        if vote in ("pass", "fail") and isinstance(confidence, int | float):
            out.append(Scored(confidence=float(confidence), correct=vote == r.label.value))
    return out


def split_tasks(tasks: Sequence[str], seed: int) -> tuple[set[str], set[str]]:
    """(fit tasks, threshold tasks): tasks ordered by a seeded hash, alternately assigned, so
    the halves differ in size by at most one and the split does not depend on task names'
    order."""
    ordered = sorted(tasks, key=lambda t: hashlib.sha256(f"{seed}:{t}".encode()).hexdigest())
    return set(ordered[0::2]), set(ordered[1::2])


def _dev_result(run_dir: Path, record: CaseRecord) -> DevResult | None:
    """A labelled rules verdict's check findings (check id → outcome), read from its
    inspection log; None for an error, no label, or a log that is missing or unreadable (said
    in the run's log line, naming the file)."""
    if record.decision is Decision.ERROR or record.label is None:
        return None
    path = run_dir / CASES_OUT / record.case_id / LOG_FILE
    if not path.is_file():
        log.warning("calibrate.no_findings", case_id=record.case_id, path=str(path),
                    problem="missing")
        return None
    try:
        findings: dict[str, Outcome] = {i.check: i.outcome for i in read_log(path.parent)}
    except (OSError, ValueError) as exc:
        log.warning("calibrate.no_findings", case_id=record.case_id, path=str(path),
                    problem=in_one_line(exc, "file"))
        return None
    return DevResult(case_id=record.case_id, label=record.label, findings=findings)


def _scored(records: Sequence[CaseRecord], point: Point) -> tuple[list[Scored], int]:
    """(confidence, right) of each labelled record `point` places, and how many records were
    left out."""
    scored: list[Scored] = []
    left_out = 0
    for r in records:
        placed = point(r) if r.label is not None else None
        if placed is None or r.label is None:
            left_out += 1
            continue
        decision, confidence = placed
        scored.append(Scored(confidence=confidence, correct=_agrees(decision, r.label)))
    return scored, left_out


def _judged(record: CaseRecord) -> tuple[Decision, float] | None:
    """The judge's own (forced) decision and confidence."""
    if record.decision is Decision.ERROR:
        return None
    decision = forced_decision(record.verdict)
    confidence = record.verdict.confidence
    if decision is None or confidence is None:
        return None
    return decision, confidence


def _refitted(run_dir: Path, rules: RuleSet) -> Point:
    """The decision and confidence the rules judge gives a record's findings under the
    refitted `rules`, rounded as the judge's verdict rounds it (so that a threshold at a dev
    case's confidence is one the applied judge reaches)."""
    def point(record: CaseRecord) -> tuple[Decision, float] | None:
        case = _dev_result(run_dir, record)
        if case is None:
            return None
        combined = recombine(rules, case.findings, allow_abstain=False)
        return combined.forced, round(combined.side_probability(), 6)
    return point


def _agrees(decision: Decision, label: Label) -> bool:
    return decision.value == label.value
