"""JudgeSkills: versioned skill directories for the agent judge, and their lineage."""

from judge_runner.skills.lineage import (
    Lineage,
    LineageEntry,
    Origin,
    VersionFigures,
    check_lineage,
    load_lineage,
)
from judge_runner.skills.model import JudgeSkill, Reference, SkillError, load_skill

__all__ = [
    "JudgeSkill",
    "Lineage",
    "LineageEntry",
    "Origin",
    "Reference",
    "SkillError",
    "VersionFigures",
    "check_lineage",
    "load_lineage",
    "load_skill",
]
