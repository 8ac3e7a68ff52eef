"""Writing case packages from runs that are not Harbor trials (the plain format, Inspect logs).

A source module turns each of its runs into a `RunInput` — the instruction, the raw run, the
label, and where its final files and skills are, if anywhere — and `import_runs` writes them as
the Harbor importer does: same normalizer, same artifact rebuilding, same staging and
report, same label file, and the same `IMPORT_INCOMPLETE` marker from the first write to the last
(`importer.start_dataset` / `finish_dataset`; a full disk stops the import and leaves it). A run
that cannot be read is reported as failed with its reason and the batch goes on.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from judge_runner.cases import (
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    LabelRecord,
    SkillsSource,
    Source,
    artifact_record,
    case_stats,
    package_texts,
    trajectory_json,
)
from judge_runner.core import CASES_DIR, Label
from judge_runner.ingest.artifacts import reconstruct
from judge_runner.ingest.importer import (
    STAGING_DIR,
    ImportOptions,
    _commit,
    _copy_tree,
    _store_reconstructed,
    case_id_for,
    finish_dataset,
    io_failure_reason,
    start_dataset,
)
from judge_runner.ingest.normalize import normalize
from judge_runner.ingest.paths import SafeTree, UnsafePathError, describe, plain_name
from judge_runner.ingest.raw import RawKind, RawRun, TranscriptError
from judge_runner.ingest.report import ImportReport, TrialReport, TrialStatus
from judge_runner.ingest.skill_use import mark_skill_reads
from judge_runner.ingest.tasks import DomainMap


class RunError(Exception):
    """A run its source cannot read; the message says what and where."""


@dataclass
class RunInput:
    task: str
    trial_name: str  # unique within its source: the case id is derived from it
    folder: str  # names the source (a log file, a run folder) in the case id
    instruction: str
    run: RawRun
    reward: float | None = None
    label: Label | None = None
    artifacts: Path | None = None  # folder of the run's final files, copied as they are
    skills: Path | None = None  # folder of the run's skill folders (<skills>/<name>/SKILL.md)
    category: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PendingRun:
    """One run of a source, read only when its turn comes."""

    display: str
    load: Callable[[], RunInput]


def import_runs(runs: Iterable[PendingRun], out: Path, options: ImportOptions) -> ImportReport:
    """Write every run as a case of dataset `out`, with labels.jsonl and import_report.json."""
    tree = start_dataset(out)
    domains = DomainMap.load(options.domains_file)
    entries: list[TrialReport] = []
    labels: dict[str, LabelRecord] = {}
    try:
        for pending in runs:
            entries.append(_one(pending, tree, options, domains, labels))
    finally:
        shutil.rmtree(tree.root / STAGING_DIR, ignore_errors=True)
    return finish_dataset(tree, ImportReport(trials=entries, unmapped_categories=[]), labels,
                          options.require_label)


def _one(pending: PendingRun, tree: SafeTree, options: ImportOptions, domains: DomainMap,
         labels: dict[str, LabelRecord]) -> TrialReport:
    entry = TrialReport(trial_path=pending.display, status=TrialStatus.FAILED)
    try:
        item = pending.load()
        entry.task, entry.agent, entry.model = item.task, item.run.agent, item.run.model
        entry.warnings.extend(item.warnings + item.run.warnings)
        case_id = case_id_for(item.task, item.trial_name, item.folder)
        entry.case_id = case_id
        if case_id in labels or (tree.root / CASES_DIR / case_id).exists():
            entry.status = TrialStatus.SKIPPED
            entry.reason = f"duplicate: another run already produced case {case_id}"
            return entry
        if item.label is None and options.require_label:
            raise RunError("no label; import unlabeled runs with --unlabeled")
        _write(item, pending.display, case_id, tree, options, domains, entry)
        if item.label is not None:
            labels[case_id] = LabelRecord(case_id=case_id, label=item.label,
                                          reward=item.reward if item.reward is not None else
                                          float(item.label is Label.PASS))
            entry.label = item.label
        entry.status = TrialStatus.IMPORTED
    except (RunError, TranscriptError, UnsafePathError, ValueError) as exc:
        entry.reason = str(exc)
    except OSError as exc:
        entry.reason = io_failure_reason(exc)
    finally:
        shutil.rmtree(tree.root / STAGING_DIR, ignore_errors=True)
    return entry


def _write(item: RunInput, display: str, case_id: str, tree: SafeTree, options: ImportOptions,
           domains: DomainMap, entry: TrialReport) -> None:
    stage = f"{STAGING_DIR}/{case_id}"
    run = item.run
    mark_skill_reads(run)
    trajectory = normalize(run, case_id, options.normalize)
    text = trajectory_json(trajectory)
    logged = run.skills is not None
    wanted = run.skills if logged else list(dict.fromkeys(
        s.skill for s in run.steps if s.kind is RawKind.SKILL and s.skill))
    skills = _copy_skills(wanted or [], item.skills, tree, f"{stage}/case/skills", entry)
    artifacts: list[ArtifactRecord] = []
    if item.artifacts is not None:
        copied = _copy_tree(item.artifacts, tree, f"{stage}/case/artifacts", entry,
                            options.max_artifact_bytes)
        artifacts = [artifact_record(rel, rel, data, ArtifactProvenance.COPIED)
                     for rel, data in copied]
    artifacts += _store_reconstructed(reconstruct(run), artifacts, tree,
                                      f"{stage}/case/artifacts", options)
    meta = CaseMeta.model_validate({
        "id": case_id, "task": item.task, "domain": domains.domain_for(item.task, item.category),
        "category": item.category,
        "source": Source(trial_path=display, trial_name=item.trial_name, agent=run.agent,
                         model=run.model, transcript_format=run.source_format),
        "with_skills": bool(skills), "skills": skills,
        "artifacts": sorted(artifacts, key=lambda a: a.path),
        "stats": case_stats(trajectory, text, run.raw_chars),
        "skills_source": SkillsSource.TRANSCRIPT if logged else SkillsSource.USED,
        "notes": run.notes})
    for name, content in package_texts(meta, item.instruction, text).items():
        tree.write_text(f"{stage}/case/{name}", content)
    _commit(tree, stage, case_id)


def _copy_skills(names: list[str], root: Path | None, tree: SafeTree, dest: str,
                 entry: TrialReport) -> list[str]:
    copied = []
    for name in names:
        source = root / name if root is not None and plain_name(name) else None
        if source is None or describe(source) != "directory":
            entry.warnings.append(f"skill {name!r} the agent had is not in the run's skills/")
            continue
        _copy_tree(source, tree, f"{dest}/{name}", entry, max_bytes=None)
        copied.append(name)
    return copied
