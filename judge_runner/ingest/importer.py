"""Turn Harbor trial folders into a dataset of case packages.

For each trial found under the given roots: read ``result.json`` (task, reward, exception), parse
the transcript (Claude Code stream-json preferred, ATIF ``agent/trajectory.json`` otherwise),
find the task folder, normalize, rebuild artifacts, and write::

    cases/<case_id>/{case.json, instruction.md, trajectory.json, skills/, artifacts/}
    evidence/<case_id>/verifier/...      (outside cases/: never shown to a judge)
    evidence/<case_id>/exception_info.json   (a verifier-side exception, when Harbor recorded one)
    labels.jsonl                         (outside cases/)
    import_report.json

A trial that cannot be imported is recorded as failed with its reason and the batch goes on.
Only regular files are read from a trial: a pipe, a device, a socket or a symlink is skipped
with a warning naming it (see `paths`). An artifact path that cannot be stored (a NUL byte, a
name over the file system's limit, a file where another artifact needs a folder) becomes an
`unknown` artifact with a note instead of failing the trial. Each case is written to a staging
folder and moved into place only when complete, and the dataset carries an `IMPORT_INCOMPLETE`
marker from the first write to the last (a full disk stops the import and leaves it there); the
staging folder is removed on every exit path, an exception included. Every write goes through
`SafeTree`, so nothing lands outside ``--out``. Output is deterministic: same trials and options
give byte-identical files (no timestamps, sorted listings).

Claude Code transcripts are parsed as a stream, one line at a time, so memory stays near the
size of the parsed run rather than a multiple of the file (ATIF files are one JSON document and
are read whole; both are bounded by `ImportOptions.max_transcript_bytes`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from judge_runner.cases import (
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    Domain,
    LabelRecord,
    Source,
    Trajectory,
    artifact_record,
    case_stats,
    label_line,
    package_texts,
    trajectory_json,
)
from judge_runner.core import CASES_DIR, EVIDENCE_DIR, INCOMPLETE_FILE, LABELS_FILE, Label
from judge_runner.ingest import agent_log, claude_code, gemini_cli, skills_rule, terminus
from judge_runner.ingest.artifacts import FileState, reconstruct
from judge_runner.ingest.normalize import NormalizeOptions, normalize
from judge_runner.ingest.paths import (
    NotRegularFileError,
    SafeTree,
    UnsafePathError,
    describe,
    open_regular,
    plain_name,
    read_regular,
    walk_files,
)
from judge_runner.ingest.raw import RawKind, RawRun, TranscriptError
from judge_runner.ingest.report import REPORT_FILE, ImportReport, TrialReport, TrialStatus
from judge_runner.ingest.skill_use import mark_skill_reads
from judge_runner.ingest.tasks import (
    DomainMap,
    TaskError,
    TaskInfo,
    find_task,
)
from judge_runner.ingest.trials import FoundTrial, TrialError, TrialResult, discover, read_result
from judge_runner.log import get_logger

log = get_logger(__name__)

STAGING_DIR = ".staging"
EXCEPTION_EVIDENCE = "exception_info.json"
_SAFE_ID = re.compile(r"[^a-z0-9._-]+")
# Errors of one artifact path that the file system refuses; the artifact becomes unknown.
_PATH_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EEXIST, errno.ENOTDIR, errno.EISDIR,
                          errno.EINVAL, errno.EILSEQ})
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_NAME_MAX = 255  # bytes in one path component on the file systems we write to
_PATH_MAX = 4000  # bytes of a stored artifact's path below artifacts/ (PATH_MAX is 4096)


@dataclass(frozen=True)
class ImportOptions:
    """Importer knobs.

    task_dirs: folders holding task folders (``<dir>/<task>/instruction.md``).
    domains_file: category → domain mapping (None: the bundled ``domains.toml``).
    pass_threshold: reward at or above which a trial is labeled pass (1.0: full marks only).
    require_label: a trial without a verifier reward fails (True); False imports it unlabeled.
    max_transcript_bytes: larger transcripts are refused (512 MiB).
    max_artifact_bytes: larger artifact files are listed as unknown, not stored (20 MiB).
    normalize: cut limits for the normalizer.
    agent_skills: which skills the agent had (`skills_rule`; AUTO: the documented rule).
    """

    task_dirs: list[Path]
    domains_file: Path | None = None
    pass_threshold: float = 1.0
    require_label: bool = True
    max_transcript_bytes: int = 512 * 1024 * 1024
    max_artifact_bytes: int = 20 * 1024 * 1024
    normalize: NormalizeOptions = field(default_factory=NormalizeOptions)
    agent_skills: skills_rule.AgentSkills = skills_rule.AgentSkills.AUTO


class OutputDirError(Exception):
    """`--out` exists, is not empty and is not a dataset written by this importer."""


class _TrialFailure(Exception):
    """Ends one trial's import; the message becomes the report's reason."""


def case_id_for(task: str, trial_name: str, folder_name: str) -> str:
    """Stable, filesystem-safe id: `<task slug>__<10 hex of sha256(folder/trial name)>`."""
    slug = _SAFE_ID.sub("-", task.lower()).strip("-.")[:80] or "task"
    digest = hashlib.sha256(f"{folder_name}/{trial_name}".encode()).hexdigest()[:10]
    return f"{slug}__{digest}"


def import_trials(roots: list[Path], out: Path, options: ImportOptions,
                  progress: Callable[[int, int], None] | None = None) -> ImportReport:
    """Import every trial under `roots` into dataset `out` and write `import_report.json`.

    Raises OutputDirError when `out` holds something other than an earlier import, ValueError or
    OSError when the domains file is bad. Per-trial problems never raise: they are reported.
    """
    tree = start_dataset(out)
    domains = DomainMap.load(options.domains_file)
    trials = discover(roots)
    entries: list[TrialReport] = []
    labels: dict[str, LabelRecord] = {}
    unmapped: set[str] = set()
    try:
        for done, trial in enumerate(trials, start=1):
            entry = _import_one(trial, tree, options, domains, labels, unmapped)
            entries.append(entry)
            log.debug("trial", path=entry.trial_path, status=entry.status.value,
                      reason=entry.reason)
            if progress is not None:
                progress(done, len(trials))
    finally:
        shutil.rmtree(tree.root / STAGING_DIR, ignore_errors=True)
    return finish_dataset(tree, ImportReport(trials=entries, unmapped_categories=sorted(unmapped)),
                          labels, options.require_label)


def start_dataset(out: Path) -> SafeTree:
    """Clear an earlier import's outputs from `out` (OutputDirError for any other non-empty
    folder) and mark it incomplete. Every importer starts here and ends with `finish_dataset`:
    the marker is written first and removed last, so a dataset whose import stopped (a full
    disk, a kill) stays visibly partial, and validate/eval/bench refuse it."""
    _prepare_out(out)
    tree = SafeTree(out)
    tree.write_text(INCOMPLETE_FILE, "an import into this folder has not finished\n")
    return tree


def finish_dataset(tree: SafeTree, report: ImportReport, labels: dict[str, LabelRecord],
                   require_label: bool) -> ImportReport:
    """Write labels.jsonl (when any run is labeled, or labels are required) and
    import_report.json, each whole, then remove the incomplete marker."""
    lines = "".join(label_line(labels[k]) for k in sorted(labels))
    if lines or require_label:
        _write_whole(tree, LABELS_FILE, lines)
    _write_whole(tree, REPORT_FILE, report.model_dump_json(indent=2) + "\n")
    tree.path(INCOMPLETE_FILE).unlink()
    return report


def io_failure_reason(exc: OSError) -> str:
    """The report's reason for an I/O error while importing one run. A full disk is raised
    again instead: every later run would fail too, so the import stops, marked incomplete."""
    if exc.errno in _DISK_FULL:
        raise exc
    return f"I/O error: {exc}"


def _write_whole(tree: SafeTree, rel: str, text: str) -> None:
    """Write under a temporary name and rename: the file is there whole, or not at all."""
    partial = f"{rel}.partial"
    try:
        tree.write_text(partial, text)
        os.replace(tree.path(partial), tree.path(rel))
    finally:
        tree.path(partial).unlink(missing_ok=True)


def _prepare_out(out: Path) -> None:
    """Clear the outputs of an earlier import; refuse any other non-empty folder."""
    if out.is_symlink():
        raise OutputDirError(f"{out}: output folder must not be a symlink")
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputDirError(f"{out}: exists and is not a folder")
    if any(out.iterdir()) and not (out / REPORT_FILE).is_file() \
            and not (out / INCOMPLETE_FILE).is_file():
        raise OutputDirError(f"{out}: not empty and holds no {REPORT_FILE}; "
                             "refusing to write there")
    for name in (CASES_DIR, EVIDENCE_DIR, STAGING_DIR):
        target = out / name
        if target.is_symlink():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
    for name in (LABELS_FILE, REPORT_FILE, f"{LABELS_FILE}.partial", f"{REPORT_FILE}.partial"):
        (out / name).unlink(missing_ok=True)


def _import_one(trial: FoundTrial, tree: SafeTree, options: ImportOptions, domains: DomainMap,
                labels: dict[str, LabelRecord], unmapped: set[str]) -> TrialReport:
    entry = TrialReport(trial_path=trial.display, status=TrialStatus.FAILED)
    if trial.problem is not None:
        entry.status = TrialStatus.SKIPPED
        entry.reason = trial.problem
        return entry
    try:
        result = read_result(trial.path)
        entry.task, entry.agent, entry.model = result.task, result.agent, result.model
        case_id = case_id_for(result.task, result.trial_name, trial.path.name)
        entry.case_id = case_id
        if case_id in labels or (tree.root / CASES_DIR / case_id).exists():
            entry.status = TrialStatus.SKIPPED
            entry.reason = f"duplicate: another trial already produced case {case_id}"
            return entry
        label = _label(result, options)
        # The raw run lives only inside _digest: it is freed before the case is rendered.
        digest = _digest(_parse_transcript(trial.path, options), case_id, result, options, entry)
        task = find_task(result.task, options.task_dirs)
        domain = domains.domain_for(task.name, task.category)
        if domain is None:
            unmapped.add(task.category or f"(no category: {task.name})")
            entry.warnings.append(f"unmapped category {task.category!r}: case has no domain")
        _write_case(trial, result, digest, task, case_id, tree, options, entry, domain)
        if label is not None:
            labels[case_id] = LabelRecord(case_id=case_id, label=label, reward=result.reward or 0.0)
            entry.label = label
        entry.status = TrialStatus.IMPORTED
    except (TrialError, TranscriptError, TaskError, UnsafePathError, _TrialFailure) as exc:
        entry.reason = str(exc)
    except OSError as exc:
        entry.reason = io_failure_reason(exc)
    finally:
        shutil.rmtree(tree.root / STAGING_DIR, ignore_errors=True)
    return entry


def _label(result: TrialResult, options: ImportOptions) -> Label | None:
    if result.reward is None:
        if options.require_label:
            raise _TrialFailure("result.json has no numeric verifier_result.rewards.reward "
                                "(no label); import unlabeled pools with --unlabeled")
        return None
    return Label.PASS if result.reward >= options.pass_threshold else Label.FAIL


def _parse_transcript(trial: Path, options: ImportOptions) -> RawRun:
    for rel, streamed in (("agent/claude-code.txt", True), ("agent/trajectory.json", False)):
        path = trial / rel
        what = describe(path)
        if what is None:
            continue
        if what != "regular file":
            raise _TrialFailure(f"{rel} is a {what}, not a regular file; refusing to read it")
        try:
            with open_regular(path) as (handle, size):
                if size > options.max_transcript_bytes:
                    raise _TrialFailure(f"{rel} is {size} bytes, over the "
                                        f"{options.max_transcript_bytes} byte limit")
                if streamed:
                    return claude_code.parse_lines(_text_lines(handle, rel, size))
                return gemini_cli.with_own_log(
                    trial, agent_log.parse("".join(_text_lines(handle, rel, size))))
        except NotRegularFileError as exc:
            raise _TrialFailure(f"{rel}: {exc}; refusing to read it") from exc
        except TranscriptError as exc:
            raise TranscriptError(f"unknown transcript format in {rel}: {exc}") from exc
    fallback = terminus.from_episode_dirs(trial / "agent") or gemini_cli.from_own_log(trial)
    if fallback is not None:
        return fallback
    raise _TrialFailure("no transcript: expected agent/claude-code.txt, agent/trajectory.json, "
                        "agent/episode-N/ folders or agent/gemini-cli.trajectory.json")


def _text_lines(handle: BinaryIO, rel: str, size: int) -> Iterator[str]:
    """The lines of a transcript as text, each with its newline, read at most `size` bytes.

    _TrialFailure for a binary file (a NUL byte anywhere; reported in preference to a UTF-8
    error, since it says more) or a byte sequence that is not UTF-8, with its offset."""
    offset = 0
    while offset < size:
        raw = handle.readline(size - offset)
        if not raw:
            break
        nul = raw.find(b"\x00")
        if nul >= 0:
            raise _TrialFailure(f"{rel} is binary (NUL byte at offset {offset + nul}), "
                                "not a transcript")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            later = _find_nul(handle, offset + len(raw), size)
            if later is not None:
                raise _TrialFailure(f"{rel} is binary (NUL byte at offset {later}), "
                                    "not a transcript") from exc
            raise _TrialFailure(f"{rel} is not UTF-8 text (invalid byte at offset "
                                f"{offset + exc.start})") from exc
        offset += len(raw)
        # Held as text only while it is parsed: with its bytes as well, one huge line (a tool
        # result of hundreds of megabytes) was in memory three times (docs/benchmarks.md).
        del raw
        yield line


def _find_nul(handle: BinaryIO, offset: int, size: int) -> int | None:
    while offset < size:
        chunk = handle.read(min(1 << 20, size - offset))
        if not chunk:
            return None
        nul = chunk.find(b"\x00")
        if nul >= 0:
            return offset + nul
        offset += len(chunk)
    return None


@dataclass(frozen=True)
class _Digest:
    """What a case needs from a raw run: everything but the full-length raw steps."""

    trajectory: Trajectory
    files: list[FileState]
    logged_skills: list[str] | None  # the harness's list of the skills the agent had
    used_skills: list[str]
    notes: list[str]
    agent: str | None
    model: str | None
    source_format: str
    raw_chars: int


def _digest(run: RawRun, case_id: str, result: TrialResult, options: ImportOptions,
            entry: TrialReport) -> _Digest:
    entry.warnings.extend(run.warnings)
    mark_skill_reads(run)
    return _Digest(trajectory=normalize(run, case_id, options.normalize,
                                        exception=result.exception),
                   files=reconstruct(run), logged_skills=run.skills, used_skills=_used(run),
                   notes=run.notes, agent=run.agent, model=run.model,
                   source_format=run.source_format, raw_chars=run.raw_chars)


def _write_case(trial: FoundTrial, result: TrialResult, digest: _Digest, task: TaskInfo,
                case_id: str, tree: SafeTree, options: ImportOptions, entry: TrialReport,
                domain: Domain | None) -> None:
    stage = f"{STAGING_DIR}/{case_id}"
    trajectory_text = trajectory_json(digest.trajectory)
    task_skills = sorted(p.name for p in task.skills_root.iterdir() if p.is_dir()) \
        if describe(task.skills_root) == "directory" else []
    decision = skills_rule.decide(options.agent_skills, digest.logged_skills, digest.used_skills,
                                  task_skills, trial.display, result.task)
    copied_skills = _copy_skills(decision.skills, task, tree, f"{stage}/case/skills", entry)
    artifacts = _copy_artifacts(trial.path, tree, f"{stage}/case/artifacts", options, entry)
    artifacts += _store_reconstructed(digest.files, artifacts, tree, f"{stage}/case/artifacts",
                                      options)
    meta = CaseMeta.model_validate({
        "id": case_id, "task": result.task, "domain": domain, "category": task.category,
        "source": Source(trial_path=trial.display, trial_name=result.trial_name,
                         agent=digest.agent or result.agent, model=result.model or digest.model,
                         transcript_format=digest.source_format),
        "with_skills": bool(copied_skills), "skills": copied_skills,
        "artifacts": sorted(artifacts, key=lambda a: a.path),
        "stats": case_stats(digest.trajectory, trajectory_text, digest.raw_chars),
        "skills_source": decision.source, "notes": digest.notes})
    for name, text in package_texts(meta, task.instruction, trajectory_text).items():
        tree.write_text(f"{stage}/case/{name}", text)
    _copy_tree(trial.path / "verifier", tree, f"{stage}/evidence/verifier", entry,
               options.max_artifact_bytes)
    if result.verifier_exception is not None:
        tree.write_text(f"{stage}/evidence/{EXCEPTION_EVIDENCE}",
                        json.dumps(result.verifier_exception, ensure_ascii=False, indent=1,
                                   sort_keys=True, default=str) + "\n")
    _commit(tree, stage, case_id)


def _used(run: RawRun) -> list[str]:
    """The skills the agent used, in order of first use."""
    return list(dict.fromkeys(s.skill for s in run.steps if s.kind is RawKind.SKILL and s.skill))


def _copy_skills(skills: list[str], task: TaskInfo, tree: SafeTree, dest: str,
                 entry: TrialReport) -> list[str]:
    copied = []
    for name in skills:
        source = task.skills_root / name
        if not plain_name(name) or describe(source) != "directory":
            entry.warnings.append(f"skill {name!r} the agent had is not in {task.skills_root}")
            continue
        _copy_tree(source, tree, f"{dest}/{name}", entry, max_bytes=None)
        copied.append(name)
    return copied


def _copy_tree(source: Path, tree: SafeTree, dest: str, entry: TrialReport,
               max_bytes: int | None) -> list[tuple[str, bytes]]:
    """Copy the regular files under `source`; anything else is skipped with a warning."""
    copied: list[tuple[str, bytes]] = []
    stored: set[str] = set()
    if describe(source) != "directory":
        return copied
    for item in walk_files(source):
        where = f"{source.name}/{item.rel}"
        if item.path is None:
            entry.warnings.append(f"{where}: {item.skipped}, skipped (only regular files are "
                                  "read; symlinks are not followed)")
            continue
        try:
            data = read_regular(item.path, max_bytes)
        except NotRegularFileError as exc:
            entry.warnings.append(f"{where}: {exc}, not copied")
            continue
        problem = _store(tree, dest, item.rel, data, stored)
        if problem is not None:
            entry.warnings.append(f"{where}: {problem}, not copied")
            continue
        stored.add(item.rel)
        copied.append((item.rel, data))
    return copied


def _store(tree: SafeTree, dest: str, rel: str, data: bytes, taken: set[str]) -> str | None:
    """Write `data` at `dest/rel`; None when written, else why this one path cannot be stored.

    `taken` holds the paths already stored below `dest`: a path that needs one of them to be a
    folder, or that is a folder of one of them, is refused before anything is written. Errors
    of the disk itself (full, read-only) are not caught: they end the trial.
    """
    problem = _path_problem(rel, taken)
    if problem is not None:
        return problem
    try:
        tree.write_bytes(f"{dest}/{rel}", data)
    except UnsafePathError as exc:
        return str(exc)
    except OSError as exc:
        if exc.errno not in _PATH_ERRNOS:
            raise
        return f"path cannot be stored ({exc.strerror})"
    return None


def _path_problem(rel: str, taken: set[str]) -> str | None:
    if "\0" in rel:
        return "path contains a NUL byte"
    parts = PurePosixPath(rel).parts
    if any(len(os.fsencode(part)) > _NAME_MAX for part in parts):
        return f"a path component is over {_NAME_MAX} bytes"
    if len(os.fsencode(rel)) > _PATH_MAX:
        return f"path is over {_PATH_MAX} bytes"
    for depth in range(1, len(parts)):
        parent = "/".join(parts[:depth])
        if parent in taken:
            return f"{parent!r} is stored as a file, so it cannot also be a folder"
    prefix = rel + "/"
    clash = next((t for t in sorted(taken) if t.startswith(prefix)), None)
    if clash is not None:
        return f"it is a folder of the stored artifact {clash!r}, so it cannot be a file"
    return None


def _copy_artifacts(trial: Path, tree: SafeTree, dest: str, options: ImportOptions,
                    entry: TrialReport) -> list[ArtifactRecord]:
    copied = _copy_tree(trial / "artifacts", tree, dest, entry, options.max_artifact_bytes)
    return [artifact_record(rel, rel, data, ArtifactProvenance.COPIED) for rel, data in copied]


def _store_reconstructed(files: list[FileState], copied: list[ArtifactRecord], tree: SafeTree,
                         dest: str, options: ImportOptions) -> list[ArtifactRecord]:
    taken = {a.stored_as for a in copied if a.stored_as is not None}
    records = []
    for state in files:
        rel = state.path.lstrip("/")
        if not rel or rel in taken:
            continue
        notes = [state.note] if state.note else []
        stored_as = None
        data = state.content.encode("utf-8") if state.content is not None else None
        if data is not None and len(data) > options.max_artifact_bytes:
            notes.append(f"reconstructed content over {options.max_artifact_bytes} bytes, "
                         "not stored")
            data = None
        if data is not None:
            problem = _store(tree, dest, rel, data, taken)
            if problem is None:
                stored_as = rel
                taken.add(rel)
            else:
                notes.append(f"content known but not stored: {problem}")
                data = None
        records.append(artifact_record(
            state.path, stored_as, data,
            ArtifactProvenance.RECONSTRUCTED if data is not None else ArtifactProvenance.UNKNOWN,
            state.steps, "; ".join(notes) or None))
    return records


def _commit(tree: SafeTree, stage: str, case_id: str) -> None:
    """Move a complete staged case and its evidence into place."""
    moves = (("case", f"{CASES_DIR}/{case_id}"), ("evidence", f"{EVIDENCE_DIR}/{case_id}"))
    for part, final in moves:
        src = tree.path(f"{stage}/{part}")
        if not src.exists():
            continue
        dst = tree.path(final)
        dst.parent.mkdir(parents=True, exist_ok=True)
        src.replace(dst)
    shutil.rmtree(tree.path(stage), ignore_errors=True)
