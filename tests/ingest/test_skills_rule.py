from __future__ import annotations

import pytest

from judge_runner.cases import SkillsSource
from judge_runner.ingest.skills_rule import AgentSkills, decide, job_has_skills


@pytest.mark.parametrize(("path", "task", "expected"), [
    ("trials/shenghan/gemini-cli/gemini3pro/skills/gemini-cli-x-skills-mars-1a/mars__q", "mars",
     True),
    ("jobs/terminus-2-flash-noskills-mars-1a/mars__q", "mars", False),
    ("jobs/claude-without-skills/x/mars__q", "mars", False),
    ("jobs/skills/run-no-skills-mars/mars__q", "mars", False),  # the deepest folder decides
    ("jobs/no-skills/run-with-skills-mars/mars__q", "mars", True),
    ("jobs/run-1/skills-audit__q", "skills-audit", None),  # the task's own name says nothing
    ("jobs/run-1/mars__q", "mars", None),
])
def test_the_job_folder_names_say_with_or_without(path: str, task: str,
                                                  expected: bool | None) -> None:
    assert job_has_skills(path, task) is expected


def test_the_order_of_the_rule() -> None:
    task_skills = ["a", "b"]
    path = "jobs/x-noskills/t__1"
    assert decide(AgentSkills.TASK, ["z"], [], task_skills, path, "t") == \
        decide(AgentSkills.TASK, None, ["a"], task_skills, "p", "t")
    assert decide(AgentSkills.TASK, ["z"], [], task_skills, path, "t").source is \
        SkillsSource.OPTION
    logged = decide(AgentSkills.AUTO, ["z"], [], task_skills, path, "t")
    assert (logged.skills, logged.source) == (["z"], SkillsSource.TRANSCRIPT)
    job = decide(AgentSkills.AUTO, None, ["a"], task_skills, path, "t")
    assert (job.skills, job.source) == ([], SkillsSource.WITHOUT_SKILLS_JOB)
    used = decide(AgentSkills.AUTO, None, ["b", "b"], task_skills, "jobs/x/t__1", "t")
    assert (used.skills, used.source) == (["b"], SkillsSource.USED)
