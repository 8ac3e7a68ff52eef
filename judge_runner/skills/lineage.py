"""The lineage file of JudgeSkill versions: who each version came from and how it scored.

`judgeskills/lineage.json` holds one entry per version directory. Versions are immutable: an
entry may record the content hash of its directory, and `check_lineage` reports any version whose
files no longer match it.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.core import Figures
from judge_runner.skills.model import SkillError, hash_directory

LINEAGE_FILE = "lineage.json"


class Origin(StrEnum):
    HANDWRITTEN = "handwritten"
    EVOLVED = "evolved"  # proposed by the optimizer and accepted by the gate
    EDITED = "edited"  # a manual revision of a parent version


class VersionFigures(BaseModel):
    """Scores of a version on one case set (the gate or the eval set), as lineage.json keeps
    them: a hand-written entry may give only some figures, so each may be missing."""

    model_config = ConfigDict(extra="forbid")

    cases: int
    accuracy: float | None = None
    balanced_accuracy: float | None = None
    recall_fail: float | None = None
    precision_pass: float | None = None
    gate_score: float | None = None  # G = 0.5·BalAcc + 0.3·Recall_fail + 0.2·Precision_pass
    run: str | None = None  # run directory the figures come from

    @classmethod
    def of(cls, figures: Figures, run: str | None = None) -> VersionFigures:
        """The lineage record of measured figures (lineage.json calls the case count `cases`
        and keeps no error count)."""
        scores = figures.model_dump(exclude={"n", "n_error"})
        return cls(cases=figures.n, run=run, **scores)


class LineageEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str  # directory name under judgeskills/
    parent: str | None
    origin: Origin
    how: str  # one sentence on how the version was made
    created: str  # ISO date
    content_hash: str | None = None
    gate: VersionFigures | None = None
    eval: VersionFigures | None = None
    notes: str = ""


class Lineage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    versions: list[LineageEntry] = Field(default_factory=list)

    def get(self, version: str) -> LineageEntry | None:
        return next((e for e in self.versions if e.version == version), None)

    def ancestry(self, version: str) -> list[str]:
        """`version` and its parents up to the root, nearest first."""
        chain: list[str] = []
        current: str | None = version
        while current is not None and current not in chain:
            chain.append(current)
            entry = self.get(current)
            current = entry.parent if entry else None
        return chain


def load_lineage(skills_root: Path) -> Lineage:
    """Read `<skills_root>/lineage.json`; an absent file is an empty lineage.

    Raises SkillError naming the file when it is not valid JSON or breaks the schema.
    """
    path = skills_root / LINEAGE_FILE
    if not path.is_file():
        return Lineage()
    try:
        return Lineage.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise SkillError(f"{path}: {exc}") from None


def check_lineage(skills_root: Path, lineage: Lineage) -> list[str]:
    """Problems with the lineage, one message each; an empty list means consistent.

    Reports: a parent that has no entry, a duplicate version, an entry without a directory, a
    version directory without an entry, and a recorded hash that differs from the files.
    """
    problems: list[str] = []
    seen: set[str] = set()
    for entry in lineage.versions:
        if entry.version in seen:
            problems.append(f"{entry.version}: listed twice")
        seen.add(entry.version)
        if entry.parent is not None and lineage.get(entry.parent) is None:
            problems.append(f"{entry.version}: parent {entry.parent} has no entry")
        directory = skills_root / entry.version
        if not directory.is_dir():
            problems.append(f"{entry.version}: no directory {directory}")
        elif entry.content_hash and hash_directory(directory) != entry.content_hash:
            problems.append(
                f"{entry.version}: files changed since recorded (versions are immutable)"
            )
    for directory in version_dirs(skills_root):
        if directory.name not in seen:
            problems.append(f"{directory.name}: directory has no lineage entry")
    return problems


def version_dirs(skills_root: Path) -> list[Path]:
    """Sub-directories of `skills_root` holding a SKILL.md, sorted by name."""
    if not skills_root.is_dir():
        return []
    return sorted(p for p in skills_root.iterdir() if (p / "SKILL.md").is_file())
