"""Loading a JudgeSkill directory: front matter, body, references, content hash.

A JudgeSkill is a directory in the Agent Skills format::

    <version>/
      SKILL.md            front matter (name, description, version) + instructions
      references/*.md     documents the judge reads with the skill
      (other files)       hashed, never rendered into a prompt (e.g. checks.toml)

Loading fails with `SkillError` naming the file and the problem; nothing is silently defaulted.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

SKILL_FILE = "SKILL.md"
REFERENCES_DIR = "references"
REQUIRED_KEYS = ("name", "description", "version")


class SkillError(ValueError):
    """A JudgeSkill directory is missing, malformed or incomplete."""


class Reference(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # path relative to the skill directory, e.g. "references/foo.md"
    text: str


class JudgeSkill(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: Path
    name: str
    description: str
    version: str
    skill_md: str  # the whole SKILL.md, front matter included, exactly as on disk
    references: tuple[Reference, ...]
    content_hash: str  # sha256 over every file of the directory (names and bytes)


class SkillRef(BaseModel):
    """Which JudgeSkill a run used, as every description of the run names it: where it was read
    from, its name and version from SKILL.md (None where it has none), and its content hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    name: str
    version: str | None
    hash: str

    def label(self) -> str:
        """`judgeskills/v1 (judge-skill v1, 1a2b3c4d5e6f)`: one line for tables and pages."""
        version = f" {self.version}" if self.version else ""
        return f"{self.path} ({self.name}{version}, {self.hash[:12]})"


def skill_ref(path: Path) -> SkillRef:
    """The reference of the skill in folder `path`; a folder without valid front matter (a
    rules-only skill, say) is named by its folder."""
    try:
        skill = load_skill(path)
    except SkillError:
        return SkillRef(path=str(path), name=path.name, version=None, hash=hash_directory(path))
    return SkillRef(path=str(path), name=skill.name, version=skill.version,
                    hash=skill.content_hash)


def parse_front_matter(text: str, where: str) -> dict[str, str]:
    """Parse flat `key: value` front matter between two `---` lines.

    Raises SkillError (naming `where`) when the block is missing, unterminated, or holds a line
    that is not `key: value`. Values may be quoted with matching single or double quotes.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillError(f"{where}: must start with a '---' front matter line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise SkillError(f"{where}: front matter is not closed by a '---' line") from None
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip() or key != key.strip():
            raise SkillError(f"{where}:{number}: expected 'key: value', got {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key.strip()] = value
    return fields


def hash_directory(root: Path) -> str:
    """sha256 over the sorted relative paths and bytes of every file under `root`."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def load_skill(path: Path) -> JudgeSkill:
    """Load the JudgeSkill in directory `path`.

    Raises SkillError when the directory or SKILL.md is missing, the front matter lacks one of
    name/description/version, or a reference is not UTF-8 text.
    """
    if not path.is_dir():
        raise SkillError(f"{path}: not a JudgeSkill directory")
    skill_file = path / SKILL_FILE
    if not skill_file.is_file():
        raise SkillError(f"{path}: no {SKILL_FILE}")
    skill_md = _read_text(skill_file)
    fields = parse_front_matter(skill_md, str(skill_file))
    missing = [k for k in REQUIRED_KEYS if not fields.get(k)]
    if missing:
        raise SkillError(f"{skill_file}: front matter lacks {', '.join(missing)}")
    ref_dir = path / REFERENCES_DIR
    ref_files = sorted(ref_dir.glob("*.md")) if ref_dir.is_dir() else []
    references = tuple(
        Reference(name=p.relative_to(path).as_posix(), text=_read_text(p)) for p in ref_files
    )
    return JudgeSkill(
        path=path,
        name=fields["name"],
        description=fields["description"],
        version=fields["version"],
        skill_md=skill_md,
        references=references,
        content_hash=hash_directory(path),
    )


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SkillError(f"{path}: not UTF-8 text ({exc.reason})") from None
