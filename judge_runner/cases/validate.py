"""Validation of a dataset on disk: schema, limits, cross-field consistency, label isolation.

Every problem is an `Issue` naming the case (or dataset-level file) and the field. Validation
never stops at the first problem and never raises for bad data; it raises only when the dataset
folder itself does not exist.

Label isolation is checked by what a file *is*, not by what it is called: a file inside a case
folder is a leak when it is the same file (same device and inode: a hard link) as, or has the
same bytes as, one of the dataset's secret files — `labels.jsonl`, `import_report.json` and the
verifier evidence under `evidence/`. Names alone never refuse a case, so an agent's own
`reward.txt` or an artifact folder called `evidence` is judged like any other file. Also
refused: any symlink and anything that is neither a regular file nor a folder (a pipe, a
device), which a judge's tools could block on.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from judge_runner.cases.dataset import CasePackage, Dataset
from judge_runner.cases.models import (
    SCHEMA_VERSION,
    ArtifactProvenance,
    CaseMeta,
    LabelRecord,
    StepKind,
    Trajectory,
    estimate_tokens,
)
from judge_runner.core import layout
from judge_runner.jsonl import numbered_lines
from judge_runner.validation import location, message

# Dataset files that carry labels; with every file under evidence/ they are the secret files.
LABEL_FILES = (layout.LABELS_FILE, layout.IMPORT_REPORT_FILE)
SMALL_SECRET_BYTES = 16
OMITTED_MARKER = "characters omitted ...]"


@dataclass(frozen=True)
class ValidationLimits:
    """Per-case limits.

    max_steps: steps in trajectory.json (1500).
    max_trajectory_tokens: estimated tokens of trajectory.json, ≈4 chars/token (150000).
    max_field_chars: characters in any single step field (20000; the importer cuts far below).
    """

    max_steps: int = 1500
    max_trajectory_tokens: int = 150_000
    max_field_chars: int = 20_000


@dataclass(frozen=True)
class Issue:
    case_id: str  # or a dataset-level file name such as labels.jsonl
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.case_id}: {self.field}: {self.message}"


def validate_dataset(root: Path, limits: ValidationLimits | None = None) -> list[Issue]:
    """All problems found in the dataset at `root`, sorted. FileNotFoundError if it is missing."""
    if not root.is_dir():
        raise FileNotFoundError(f"dataset folder not found: {root}")
    lim = limits or ValidationLimits()
    dataset = Dataset(root)
    issues: list[Issue] = []
    cases_dir = root / layout.CASES_DIR
    if not cases_dir.is_dir():
        return [Issue(layout.CASES_DIR, "cases/", "folder missing")]
    ids = []
    partial = dataset.incomplete()
    if partial is not None:
        issues.append(Issue(layout.INCOMPLETE_FILE, "import", partial))
    secrets = SecretFiles.of(root)
    for case_dir in sorted(p for p in cases_dir.iterdir()):
        if not case_dir.is_dir() or case_dir.is_symlink():
            issues.append(Issue(case_dir.name, "cases/", "not a case folder"))
            continue
        ids.append(case_dir.name)
        issues.extend(_validate_case(case_dir, lim, secrets))
    issues.extend(_validate_labels(dataset, ids))
    return sorted(issues, key=lambda i: (i.case_id, i.field, i.message))


def _validate_case(case_dir: Path, lim: ValidationLimits, secrets: SecretFiles) -> list[Issue]:
    cid = case_dir.name
    issues: list[Issue] = []
    meta = _load(case_dir / layout.CASE_FILE, CaseMeta, cid, issues)
    traj = _load(case_dir / layout.TRAJECTORY_FILE, Trajectory, cid, issues)
    instruction = case_dir / layout.INSTRUCTION_FILE
    if not instruction.is_file() or not instruction.read_text(encoding="utf-8").strip():
        issues.append(Issue(cid, "instruction.md", "missing or empty"))
    issues.extend(_leaks(case_dir, secrets))
    if meta is not None:
        issues.extend(_check_meta(case_dir, meta))
    if traj is not None:
        issues.extend(_check_trajectory(cid, traj, lim, case_dir))
    if meta is not None and traj is not None:
        issues.extend(_check_stats(cid, meta, traj, case_dir))
    return issues


def package_problems(case: CasePackage, dataset_root: Path) -> list[Issue]:
    """What makes a case package unsafe to judge: a copy or hard link of a label or verifier
    file (or any link, pipe or device) inside it, an unreadable case.json, an id that differs
    from the folder, an artifact stored outside `artifacts/` (or missing). The secret files
    compared against are the labels and import report of `dataset_root` and the case's own
    evidence (`validate_dataset` compares against all evidence of the dataset). The runner
    refuses to judge a case with any of these; the remaining checks of `validate_dataset`
    (stats, limits, unlisted files) are about quality, not safety."""
    issues = _leaks(case.root, SecretFiles.of(dataset_root, case.root.name))
    meta = _load(case.root / layout.CASE_FILE, CaseMeta, case.root.name, issues)
    if meta is not None:
        issues.extend(_unsafe_meta(case.root, meta))
    return sorted(issues, key=lambda i: (i.case_id, i.field, i.message))


def _load[M: (CaseMeta, Trajectory)](path: Path, model: type[M], cid: str,
                                      issues: list[Issue]) -> M | None:
    if not path.is_file():
        issues.append(Issue(cid, path.name, "missing"))
        return None
    try:
        return model.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        for err in exc.errors():
            issues.append(Issue(cid, f"{path.name}:{location(err['loc'], '(root)')}",
                                message(err)))
        return None


def _check_meta(case_dir: Path, meta: CaseMeta) -> list[Issue]:
    cid = case_dir.name
    issues = _unsafe_meta(case_dir, meta)
    if meta.schema_version != SCHEMA_VERSION:
        issues.append(Issue(cid, "case.json:schema_version",
                            f"{meta.schema_version!r}, expected {SCHEMA_VERSION!r}"))
    if meta.with_skills != bool(meta.skills):
        issues.append(Issue(cid, "case.json:with_skills", "disagrees with the skills list"))
    on_disk = sorted(p.name for p in (case_dir / layout.SKILLS_DIR).iterdir()) \
        if (case_dir / layout.SKILLS_DIR).is_dir() else []
    if sorted(meta.skills) != on_disk:
        issues.append(Issue(cid, "case.json:skills",
                            f"lists {sorted(meta.skills)} but skills/ holds {on_disk}"))
    package = CasePackage(case_dir)
    listed: set[str] = set()
    for i, art in enumerate(meta.artifacts):
        field = f"case.json:artifacts.{i}"
        if art.provenance is ArtifactProvenance.UNKNOWN:
            if art.stored_as is not None:
                issues.append(Issue(cid, field, "unknown artifact must not have stored_as"))
            continue
        if art.stored_as is None:
            issues.append(Issue(cid, field, f"{art.provenance.value} artifact without stored_as"))
            continue
        listed.add(art.stored_as)
        path = package.artifact_file(art)
        if path is None:
            continue  # reported by _unsafe_meta
        data = path.read_bytes()
        if art.size is not None and art.size != len(data):
            issues.append(Issue(cid, field, f"size {art.size} but file has {len(data)} bytes"))
        if art.sha256 is not None and art.sha256 != hashlib.sha256(data).hexdigest():
            issues.append(Issue(cid, field, "sha256 does not match the stored file"))
    art_root = case_dir / layout.ARTIFACTS_DIR
    if art_root.is_dir():
        for path in sorted(p for p in art_root.rglob("*") if p.is_file()):
            rel = path.relative_to(art_root).as_posix()
            if rel not in listed:
                issues.append(Issue(cid, "artifacts/", f"{rel} is not listed in case.json"))
    return issues


def _unsafe_meta(case_dir: Path, meta: CaseMeta) -> list[Issue]:
    """case.json fields that would make a judge read the wrong case or files outside it."""
    cid = case_dir.name
    issues = []
    if meta.id != cid:
        issues.append(Issue(cid, "case.json:id", f"{meta.id!r} differs from the folder name"))
    package = CasePackage(case_dir)
    for i, art in enumerate(meta.artifacts):
        if art.stored_as is not None and art.provenance is not ArtifactProvenance.UNKNOWN \
                and package.artifact_file(art) is None:
            issues.append(Issue(cid, f"case.json:artifacts.{i}",
                                f"stored_as {art.stored_as!r} is not a file inside artifacts/"))
    return issues


def _check_trajectory(cid: str, traj: Trajectory, lim: ValidationLimits,
                      case_dir: Path) -> list[Issue]:
    issues = []
    if traj.case_id != cid:
        issues.append(Issue(cid, "trajectory.json:case_id", f"{traj.case_id!r} differs"))
    if len(traj.steps) > lim.max_steps:
        issues.append(Issue(cid, "trajectory.json:steps",
                            f"{len(traj.steps)} steps, over the limit of {lim.max_steps}"))
    tokens = estimate_tokens((case_dir / layout.TRAJECTORY_FILE).read_text(encoding="utf-8"))
    if tokens > lim.max_trajectory_tokens:
        issues.append(Issue(cid, "trajectory.json", f"≈{tokens} tokens, over the limit of "
                                                     f"{lim.max_trajectory_tokens}"))
    seen_ids: set[str] = set()
    for pos, step in enumerate(traj.steps):
        field = f"trajectory.json:steps.{pos}"
        if step.index != pos:
            issues.append(Issue(cid, f"{field}.index",
                                f"{step.index}, expected {pos} (contiguous)"))
        if step.kind in (StepKind.TOOL_CALL, StepKind.SKILL_USE) and not step.tool:
            issues.append(Issue(cid, f"{field}.tool", f"{step.kind.value} step without a tool"))
        if step.kind is StepKind.SKILL_USE and not step.skill:
            issues.append(Issue(cid, f"{field}.skill", "skill_use step without a skill name"))
        if step.kind is not StepKind.TOOL_CALL and (step.exit_code is not None or
                                                    step.files_touched):
            issues.append(Issue(cid, field, "exit_code/files_touched on a non-tool step"))
        if step.tool_use_id:
            if step.tool_use_id in seen_ids:
                issues.append(Issue(cid, f"{field}.tool_use_id",
                                    f"{step.tool_use_id!r} used by two calls"))
            seen_ids.add(step.tool_use_id)
        if step.output is not None and step.kind is StepKind.TOOL_CALL and not step.tool_use_id \
                and traj.source_format != "atif":
            issues.append(Issue(cid, f"{field}.output", "a tool result with no call id"))
        if step.is_error and not step.output:
            issues.append(Issue(cid, f"{field}.is_error", "error step without output"))
        texts = [t for t in (step.text, step.output) if t is not None]
        if step.arguments is not None:
            texts.append(json.dumps(step.arguments, ensure_ascii=False))
        if any(len(t) > lim.max_field_chars for t in texts):
            issues.append(Issue(cid, field, f"a field exceeds {lim.max_field_chars} characters"))
        if step.omitted_chars and not any(OMITTED_MARKER in t for t in texts):
            issues.append(Issue(cid, f"{field}.omitted_chars", "cut without an omission marker"))
    return issues


def _check_stats(cid: str, meta: CaseMeta, traj: Trajectory, case_dir: Path) -> list[Issue]:
    s = meta.stats
    actual = {
        "n_steps": len(traj.steps),
        "n_tool_calls": sum(1 for x in traj.steps if x.kind is StepKind.TOOL_CALL),
        "n_error_steps": sum(1 for x in traj.steps if x.is_error),
        "n_skill_uses": sum(1 for x in traj.steps if x.kind is StepKind.SKILL_USE),
        "normalized_chars": len((case_dir / layout.TRAJECTORY_FILE).read_text(encoding="utf-8")),
    }
    issues = [Issue(cid, f"case.json:stats.{k}", f"{getattr(s, k)} but trajectory has {v}")
              for k, v in actual.items() if getattr(s, k) != v]
    for i, art in enumerate(meta.artifacts):
        bad = [n for n in art.steps if n >= len(traj.steps)]
        if bad:
            issues.append(Issue(cid, f"case.json:artifacts.{i}.steps", f"no such steps {bad}"))
    return issues


@dataclass
class SecretFiles:
    """The files of a dataset a judge must never see, by inode and (hashed on demand) content.

    Content is hashed only for a secret whose size equals that of a case file being checked,
    so checking a case costs a stat per file in the common case. Empty files are matched by
    inode only: every empty file has the same (empty) content. A secret shorter than
    `SMALL_SECRET_BYTES` (a `reward.txt` holding ``1``) matches by content only under its own
    file name: ``1`` in an agent's `answer.txt` says nothing, in a `reward.txt` it is the label.
    """

    root: Path
    inodes: dict[tuple[int, int], str] = field(default_factory=dict)  # -> name below root
    by_size: dict[int, list[Path]] = field(default_factory=dict)
    _hashes: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # size→digest→names

    @classmethod
    def of(cls, dataset_root: Path, case_id: str | None = None) -> SecretFiles:
        """The label files of `dataset_root` and its evidence: all of it, or one case's."""
        secrets = cls(dataset_root)
        for name in LABEL_FILES:
            secrets._add(dataset_root / name)
        evidence = dataset_root / layout.EVIDENCE_DIR
        if case_id is not None:
            evidence = evidence / case_id
        if evidence.is_dir() and not evidence.is_symlink():
            for path in sorted(evidence.rglob("*")):
                secrets._add(path)
        return secrets

    def _add(self, path: Path) -> None:
        try:
            info = path.lstat()
        except OSError:
            return
        if not stat.S_ISREG(info.st_mode):
            return
        self.inodes[(info.st_dev, info.st_ino)] = self._name(path)
        if info.st_size > 0:
            self.by_size.setdefault(info.st_size, []).append(path)

    def _name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def match(self, path: Path, info: os.stat_result) -> str | None:
        """Why the regular file `path` (lstat `info`) is a secret, or None when it is not."""
        same = self.inodes.get((info.st_dev, info.st_ino))
        if same is not None:
            return f"the same file as {same} (a hard link)"
        if info.st_size not in self.by_size:
            return None
        hashes = self._hashes.get(info.st_size)
        if hashes is None:
            hashes = {}
            for secret in self.by_size[info.st_size]:
                digest = _sha256(secret)
                if digest is not None:
                    hashes.setdefault(digest, []).append(self._name(secret))
            self._hashes[info.st_size] = hashes
        names = hashes.get(_sha256(path) or "", [])
        if info.st_size < SMALL_SECRET_BYTES:
            names = [n for n in names if n.rsplit("/", 1)[-1] == path.name]
        return f"identical to {names[0]}" if names else None


def _sha256(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _leaks(case_dir: Path, secrets: SecretFiles) -> list[Issue]:
    """Label or verifier evidence (or a link, pipe or device) inside the judge-visible case."""
    cid = case_dir.name
    issues = []
    for path in sorted(case_dir.rglob("*")):
        rel = path.relative_to(case_dir).as_posix()
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            issues.append(Issue(cid, rel, "symlink inside a case folder"))
        elif stat.S_ISREG(info.st_mode):
            why = secrets.match(path, info)
            if why is not None:
                issues.append(Issue(cid, rel, f"{why} (leak)"))
        elif not stat.S_ISDIR(info.st_mode):
            issues.append(Issue(cid, rel, "neither a file nor a folder inside a case folder"))
    return issues


def _validate_labels(dataset: Dataset, ids: list[str]) -> list[Issue]:
    path = dataset.root / layout.LABELS_FILE
    if not path.is_file():
        return []
    issues = []
    seen: set[str] = set()
    for lineno, line in numbered_lines(path):
        try:
            record = LabelRecord.model_validate_json(line)
        except ValidationError as exc:
            issues.append(Issue(layout.LABELS_FILE, f"line {lineno}", message(exc.errors()[0])))
            continue
        if record.case_id in seen:
            issues.append(Issue(layout.LABELS_FILE, f"line {lineno}",
                                f"duplicate {record.case_id}"))
        seen.add(record.case_id)
        if record.case_id not in ids:
            issues.append(Issue(layout.LABELS_FILE, f"line {lineno}", f"no case {record.case_id}"))
    for cid in ids:
        if cid not in seen:
            issues.append(Issue(cid, layout.LABELS_FILE, "no label line for this case"))
    return issues
