"""Which skills the agent had: one rule for every harness, whether or not it logs them.

In order, the first that applies decides (the source is recorded in case.json `skills_source`):

1. the import option ``--agent-skills task`` (the task's skills) or ``none`` (no skills);
2. the harness's own list: the Claude Code init event, ATIF ``agent.extra.skills``, the
   ``available_skills`` block of terminus-2's system prompt (``transcript``);
3. the job says it: a folder on the trial's path marks a with-skills run (a name with the word
   ``skills``/``withskills``, e.g. ``…/skills/gemini-cli-gemini3pro-skills-mars-…``) — the
   task's skills (``with_skills_job``) — or a without-skills run (``noskills``, ``no-skills``,
   ``without-skills``, ``wo-skills``, ``skills-off``) — none (``without_skills_job``); the
   deepest folder that says either wins, and the task's own name is ignored in each folder;
4. otherwise the skills the agent used (``used``), possibly none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath

from judge_runner.cases import SkillsSource

_WORD = re.compile(r"[a-z0-9]+")
_WITHOUT = (("noskills",), ("noskill",), ("no", "skills"), ("no", "skill"), ("without", "skills"),
            ("wo", "skills"), ("skills", "off"), ("withoutskills",), ("woskills",))
_WITH = (("skills",), ("withskills",), ("with", "skills"))


class AgentSkills(StrEnum):
    """The `--agent-skills` import option."""

    AUTO = "auto"  # rules 2-4
    TASK = "task"  # every trial had its task's skills
    NONE = "none"  # no trial had skills


@dataclass(frozen=True)
class SkillsDecision:
    skills: list[str]
    source: SkillsSource


def decide(option: AgentSkills, logged: list[str] | None, used: Sequence[str],
           task_skills: Sequence[str], trial_path: str, task: str) -> SkillsDecision:
    if option is AgentSkills.TASK:
        return SkillsDecision(list(task_skills), SkillsSource.OPTION)
    if option is AgentSkills.NONE:
        return SkillsDecision([], SkillsSource.OPTION)
    if logged is not None:
        return SkillsDecision(list(logged), SkillsSource.TRANSCRIPT)
    mode = job_has_skills(trial_path, task)
    if mode is True:
        return SkillsDecision(list(task_skills), SkillsSource.WITH_SKILLS_JOB)
    if mode is False:
        return SkillsDecision([], SkillsSource.WITHOUT_SKILLS_JOB)
    return SkillsDecision(list(dict.fromkeys(used)), SkillsSource.USED)


def job_has_skills(trial_path: str, task: str) -> bool | None:
    """True / False when a folder on the path marks a with- / without-skills run, else None."""
    task_words = _WORD.findall(task.lower())
    for part in reversed(PurePosixPath(trial_path).parts):
        words = _drop(_WORD.findall(part.lower()), task_words)
        if _has(words, _WITHOUT):
            return False
        if _has(words, _WITH):
            return True
    return None


def _drop(words: list[str], task_words: list[str]) -> list[str]:
    """`words` without the first run of the task name's words."""
    n = len(task_words)
    for start in range(len(words) - n + 1) if n else ():
        if words[start:start + n] == task_words:
            return [*words[:start], "|", *words[start + n:]]
    return words


def _has(words: list[str], patterns: tuple[tuple[str, ...], ...]) -> bool:
    return any(words[i:i + len(p)] == list(p) for p in patterns for i in range(len(words)))
