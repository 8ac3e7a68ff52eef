"""JudgeSkills: versioned skill directories for the agent judge, and their lineage."""

from judge_runner.skills.lineage import (
    Figures,
    Lineage,
    LineageEntry,
    Origin,
    check_lineage,
    load_lineage,
)
from judge_runner.skills.model import JudgeSkill, Reference, SkillError, load_skill

__all__ = [
    "Figures",
    "JudgeSkill",
    "Lineage",
    "LineageEntry",
    "Origin",
    "Reference",
    "SkillError",
    "check_lineage",
    "load_lineage",
    "load_skill",
]
