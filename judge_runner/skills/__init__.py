"""JudgeSkills: versioned skill directories for the agent judge, and their lineage."""

from judge_runner.skills.lineage import (
    LINEAGE_FILE,
    Lineage,
    LineageEntry,
    Origin,
    VersionFigures,
    check_lineage,
    load_lineage,
    version_dirs,
)
from judge_runner.skills.model import (
    JudgeSkill,
    Reference,
    SkillError,
    SkillRef,
    hash_directory,
    load_skill,
    skill_ref,
)

__all__ = [
    "LINEAGE_FILE",
    "JudgeSkill",
    "Lineage",
    "LineageEntry",
    "Origin",
    "Reference",
    "SkillError",
    "SkillRef",
    "VersionFigures",
    "check_lineage",
    "hash_directory",
    "load_lineage",
    "load_skill",
    "skill_ref",
    "version_dirs",
]
