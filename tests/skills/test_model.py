from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge_runner.skills import SkillError, load_skill
from judge_runner.skills.model import parse_front_matter
from tests.conftest import REPO

V1 = REPO / "judgeskills" / "v1"


def test_v1_loads_with_front_matter_and_three_references() -> None:
    skill = load_skill(V1)
    assert skill.name == "skill-trajectory-judge"
    assert skill.version == "v1"
    assert skill.description
    assert [r.name for r in skill.references] == [
        "references/artifacts-and-final-state.md",
        "references/reasoning-and-execution.md",
        "references/skill-use-and-orchestration.md",
    ]
    assert all(len(r.text) > 2000 for r in skill.references)
    assert len(skill.content_hash) == 64


def test_hash_changes_with_content_and_is_stable(tmp_path: Path) -> None:
    copy = tmp_path / "v1"
    shutil.copytree(V1, copy)
    assert load_skill(copy).content_hash == load_skill(V1).content_hash
    ref = copy / "references" / "reasoning-and-execution.md"
    ref.write_text(ref.read_text() + "\nmore\n")
    assert load_skill(copy).content_hash != load_skill(V1).content_hash


def test_missing_front_matter_key_is_named(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: x\nversion: v9\n---\nbody\n")
    with pytest.raises(SkillError, match="description"):
        load_skill(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no front matter", "must start"),
        ("---\nname: x\n", "not closed"),
        ("---\njust words\n---\n", r":2: expected 'key: value'"),
    ],
)
def test_bad_front_matter(text: str, message: str) -> None:
    with pytest.raises(SkillError, match=message):
        parse_front_matter(text, "SKILL.md")


def test_quoted_values_are_unquoted() -> None:
    assert parse_front_matter('---\nname: "a: b"\n---\n', "x") == {"name": "a: b"}


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="not a JudgeSkill directory"):
        load_skill(tmp_path / "nope")
