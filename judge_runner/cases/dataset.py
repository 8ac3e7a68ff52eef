"""Reading a dataset directory: case packages, labels and evidence, each from its own place."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from judge_runner.cases.models import ArtifactRecord, CaseMeta, LabelRecord, Trajectory
from judge_runner.core import layout
from judge_runner.jsonl import read_models
from judge_runner.untrusted import Fence


@dataclass(frozen=True)
class CasePackage:
    """A case as a judge sees it: the directory `cases/<id>/` and its parsed files."""

    root: Path

    @cached_property
    def meta(self) -> CaseMeta:
        text = (self.root / layout.CASE_FILE).read_text(encoding="utf-8")
        return CaseMeta.model_validate_json(text)

    @cached_property
    def trajectory(self) -> Trajectory:
        text = (self.root / layout.TRAJECTORY_FILE).read_text(encoding="utf-8")
        return Trajectory.model_validate_json(text)

    @cached_property
    def instruction(self) -> str:
        return (self.root / layout.INSTRUCTION_FILE).read_text(encoding="utf-8")

    @property
    def id(self) -> str:
        return self.meta.id

    @cached_property
    def fence(self) -> Fence:
        """The boundary around this case's run text in every prompt: a hash of case.json,
        trajectory.json and instruction.md, so no text of the run can contain it."""
        return Fence.of(*((self.root / name).read_bytes() for name in (
            layout.CASE_FILE, layout.TRAJECTORY_FILE, layout.INSTRUCTION_FILE)))

    @property
    def skills_dir(self) -> Path:
        return self.root / layout.SKILLS_DIR

    @property
    def artifacts_dir(self) -> Path:
        return self.root / layout.ARTIFACTS_DIR

    def artifact_file(self, record: ArtifactRecord) -> Path | None:
        """The stored file of `record` if it is a regular file inside `artifacts/`, else None.

        case.json is data, not trusted code: a `stored_as` that is absolute, climbs out with
        `..`, or passes through a symlink could name labels.jsonl or verifier evidence, so it is
        refused here rather than read. None also when the record has no stored copy or the file
        is missing. Every reader of artifact contents goes through this.
        """
        if record.stored_as is None:
            return None
        relative = PurePosixPath(record.stored_as)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            return None
        root = self.artifacts_dir
        path = root
        for part in relative.parts:
            path = path / part
            if path.is_symlink():
                return None
        if root.is_symlink() or not path.is_file():
            return None
        if not path.resolve().is_relative_to(root.resolve()):
            return None
        return path


@dataclass(frozen=True)
class Dataset:
    root: Path

    @property
    def cases_dir(self) -> Path:
        return self.root / layout.CASES_DIR

    def case_ids(self) -> list[str]:
        if not self.cases_dir.is_dir():
            return []
        return sorted(p.name for p in self.cases_dir.iterdir() if (p / layout.CASE_FILE).is_file())

    def case(self, case_id: str) -> CasePackage:
        return CasePackage(self.cases_dir / case_id)

    def cases(self) -> list[CasePackage]:
        return [self.case(i) for i in self.case_ids()]

    def labels(self) -> dict[str, LabelRecord]:
        """Labels by case id; empty when the dataset carries none (an unlabeled pool)."""
        records = read_models(self.root / layout.LABELS_FILE, LabelRecord, missing_ok=True)
        return {r.case_id: r for r in records}

    def incomplete(self) -> str | None:
        """Why the dataset is partial (an import into it did not finish), or None when it is
        complete. Readers that judge or split a dataset refuse a partial one."""
        marker = self.root / layout.INCOMPLETE_FILE
        if not marker.exists():
            return None
        return (f"{self.root} is incomplete: the import that wrote it did not finish "
                f"({layout.INCOMPLETE_FILE} is present); run the same import again")

    def evidence_dir(self, case_id: str) -> Path:
        return self.root / layout.EVIDENCE_DIR / case_id
