"""Writing case packages: the one place that renders case.json, trajectory.json and label lines
and derives `CaseStats` and artifact records from what is actually written.

The importer renders its packages with these functions; `write_case` writes a whole package from
in-memory parts (a trajectory built by hand, artifacts as bytes) so that anything producing cases
without Harbor trials gets a package `validate_dataset` accepts: stats counted from the written
trajectory, artifact size and sha256 taken from the stored bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from judge_runner.cases.dataset import CasePackage
from judge_runner.cases.models import (
    ArtifactProvenance,
    ArtifactRecord,
    CaseMeta,
    CaseStats,
    Domain,
    LabelRecord,
    Source,
    StepKind,
    Trajectory,
    estimate_tokens,
)
from judge_runner.core import layout

type FileData = bytes | str


def _json_text(model: BaseModel) -> str:
    return json.dumps(model.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"


def case_json(meta: CaseMeta) -> str:
    """case.json text: one-space indent, non-ASCII kept as is, newline at the end."""
    return _json_text(meta)


def trajectory_json(trajectory: Trajectory) -> str:
    """trajectory.json text: one step per line, fields at their defaults left out (the schema
    restores them), so the file stays small, greppable and diffable."""
    head = trajectory.model_dump(mode="json", exclude={"steps"})
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    parts = ["{\n", "\n".join(lines)]
    if not trajectory.steps:
        parts.append('\n "steps": []\n}\n')
    else:  # one join over all parts: a 40,000-step trajectory is copied once, not three times
        parts.append('\n "steps": [\n  ')
        for pos, step in enumerate(trajectory.steps):
            if pos:
                parts.append(",\n  ")
            parts.append(json.dumps(step.model_dump(mode="json", exclude_defaults=True),
                                    ensure_ascii=False))
        parts.append("\n ]\n}\n")
    return "".join(parts)


def label_line(record: LabelRecord) -> str:
    """One labels.jsonl line (keys sorted, newline included). Strict JSON: a NaN or infinite
    reward raises ValueError rather than writing `NaN`, which no JSON reader accepts."""
    return json.dumps(record.model_dump(mode="json"), ensure_ascii=False, sort_keys=True,
                      allow_nan=False) + "\n"


def package_texts(meta: CaseMeta, instruction: str, trajectory_text: str) -> dict[str, str]:
    """The text files of a case package by file name, as written to disk."""
    return {layout.CASE_FILE: case_json(meta), layout.INSTRUCTION_FILE: instruction,
            layout.TRAJECTORY_FILE: trajectory_text}


def case_stats(trajectory: Trajectory, trajectory_text: str, raw_chars: int) -> CaseStats:
    """Stats of a case whose trajectory.json holds `trajectory_text`; `raw_chars` is the size of
    the transcript it was normalized from."""
    steps = trajectory.steps
    return CaseStats(
        n_steps=len(steps),
        n_tool_calls=sum(1 for s in steps if s.kind is StepKind.TOOL_CALL),
        n_error_steps=sum(1 for s in steps if s.is_error),
        n_skill_uses=sum(1 for s in steps if s.kind is StepKind.SKILL_USE),
        raw_chars=raw_chars, normalized_chars=len(trajectory_text),
        raw_tokens_est=(raw_chars + 3) // 4,
        normalized_tokens_est=estimate_tokens(trajectory_text))


def artifact_record(path: str, stored_as: str | None, data: bytes | None,
                    provenance: ArtifactProvenance, steps: Sequence[int] = (),
                    note: str | None = None) -> ArtifactRecord:
    """The record of an artifact; size and sha256 come from `data` (None: content unknown)."""
    return ArtifactRecord(
        path=path, stored_as=stored_as, size=len(data) if data is not None else None,
        sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
        provenance=provenance, steps=list(steps), note=note)


def write_case(dataset_root: Path, *, task: str, instruction: str, trajectory: Trajectory,
               source: Source, domain: Domain | None = None, category: str | None = None,
               skills: Mapping[str, Mapping[str, FileData]] | None = None,
               artifacts: Mapping[str, FileData] | None = None,
               raw_chars: int | None = None, label: LabelRecord | None = None) -> CasePackage:
    """Write `cases/<trajectory.case_id>/` under `dataset_root` and return it.

    skills: skill name -> {path inside the skill folder -> content}; `with_skills` follows it.
    artifacts: path as the agent saw it (``/root/out.json``) -> content, stored under
    ``artifacts/`` without the leading slash, provenance ``copied``; an artifact's steps are the
    trajectory steps whose `files_touched` name it. raw_chars: size of the source transcript
    (None: the written trajectory.json's). label: appended to ``labels.jsonl`` when given.

    Raises FileExistsError when the case folder already exists, ValueError for a skill name or
    file path that is empty, absolute after the leading slash, or climbs out with ``..``, and for
    a label of another case; nothing is written then.
    """
    case_id = trajectory.case_id
    if label is not None and label.case_id != case_id:
        raise ValueError(f"label is for case {label.case_id!r}, not {case_id!r}")
    skill_files = {name: {_relative(rel, f"skill {name!r}"): data for rel, data in files.items()}
                   for name, files in (skills or {}).items()}
    for name in skill_files:
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"skill name {name!r} is not a plain folder name")
    stored = {path: (_relative(path, "artifact"), _bytes(data))
              for path, data in (artifacts or {}).items()}
    if len({rel for rel, _ in stored.values()}) != len(stored):
        raise ValueError("two artifact paths would be stored as the same file")
    case_dir = dataset_root / layout.CASES_DIR / case_id
    if case_dir.exists():
        raise FileExistsError(f"{case_dir}: case folder already exists")
    text = trajectory_json(trajectory)
    records = [artifact_record(path, rel, data, ArtifactProvenance.COPIED,
                               [s.index for s in trajectory.steps if path in s.files_touched])
               for path, (rel, data) in stored.items()]
    meta = CaseMeta(id=case_id, task=task, domain=domain, category=category, source=source,
                    with_skills=bool(skill_files), skills=list(skill_files),
                    artifacts=sorted(records, key=lambda a: a.path),
                    stats=case_stats(trajectory, text,
                                     len(text) if raw_chars is None else raw_chars))
    for name, files in skill_files.items():
        for rel, data in files.items():
            _write(case_dir / layout.SKILLS_DIR / name / rel, _bytes(data))
    for rel, data in stored.values():
        _write(case_dir / layout.ARTIFACTS_DIR / rel, data)
    for name, content in package_texts(meta, instruction, text).items():
        _write(case_dir / name, content.encode("utf-8"))
    if label is not None:
        append_labels(dataset_root, [label])
    return CasePackage(case_dir)


def append_labels(dataset_root: Path, records: Iterable[LabelRecord]) -> None:
    """Append `records` to the dataset's labels.jsonl (created when missing). OSError on I/O
    failure; duplicates are not checked here (`validate_dataset` reports them)."""
    dataset_root.mkdir(parents=True, exist_ok=True)
    with (dataset_root / layout.LABELS_FILE).open("a", encoding="utf-8") as out:
        out.write("".join(label_line(r) for r in records))


def _relative(path: str, what: str) -> str:
    rel = PurePosixPath(path.lstrip("/"))
    if not rel.parts or rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"{what} path {path!r} does not name a file inside the package")
    return rel.as_posix()


def _bytes(data: FileData) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
