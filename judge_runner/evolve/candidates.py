"""Validating a candidate JudgeSkill before it may be gated.

A candidate must be a well-formed Agent Skill (front matter with name, description, version),
stay within size limits, and carry no case-specific leakage: no case id, no task name, and no
verbatim line of verifier evidence from the dev pool. A candidate that fails is recorded as
invalid with every problem listed; it is never gated.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from judge_runner.skills import SkillError, load_skill

MAX_SKILL_MD_CHARS = 40_000
MAX_FILE_CHARS = 40_000
MAX_TOTAL_CHARS = 160_000
MIN_EVIDENCE_LINE = 32  # shorter evidence lines are too generic to count as copied
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class LeakageGuard:
    """What a candidate must not contain."""

    case_ids: frozenset[str]
    task_names: frozenset[str]
    evidence_lines: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def build(
        cls, case_ids: Iterable[str], task_names: Iterable[str], evidence_texts: Iterable[str]
    ) -> LeakageGuard:
        lines = {
            line.strip()
            for text in evidence_texts
            for line in text.splitlines()
            if len(line.strip()) >= MIN_EVIDENCE_LINE
        }
        return cls(frozenset(case_ids), frozenset(task_names), frozenset(lines))

    def problems(self, name: str, text: str) -> list[str]:
        found = [f"{name}: names case id {cid!r}" for cid in sorted(self.case_ids) if cid in text]
        found += [
            f"{name}: names task {task!r}"
            for task in sorted(self.task_names)
            if re.search(rf"(?<![\w-]){re.escape(task)}(?![\w-])", text)
        ]
        copied = sorted(line for line in self.evidence_lines if line in text)
        found += [f"{name}: copies verifier evidence verbatim: {line[:60]!r}" for line in copied]
        return found


def validate_candidate(skill_dir: Path, guard: LeakageGuard) -> list[str]:
    """Every reason `skill_dir` may not be gated; an empty list means it is valid."""
    try:
        skill = load_skill(skill_dir)
    except SkillError as exc:
        return [str(exc)]
    problems: list[str] = []
    if not _NAME.match(skill.name):
        problems.append(f"SKILL.md front matter: name {skill.name!r} is not lowercase-hyphenated")
    if len(skill.description) > 1024:
        problems.append("SKILL.md front matter: description exceeds 1024 characters")
    total = 0
    for path in sorted(p for p in skill_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(skill_dir).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            problems.append(f"{rel}: not UTF-8 text")
            continue
        total += len(text)
        limit = MAX_SKILL_MD_CHARS if rel == "SKILL.md" else MAX_FILE_CHARS
        if len(text) > limit:
            problems.append(f"{rel}: {len(text)} characters exceeds the limit of {limit}")
        if path.suffix == ".toml":
            try:
                tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                problems.append(f"{rel}: invalid TOML: {exc}")
        problems += guard.problems(rel, text)
    if total > MAX_TOTAL_CHARS:
        problems.append(f"skill totals {total} characters, over the limit of {MAX_TOTAL_CHARS}")
    return problems
