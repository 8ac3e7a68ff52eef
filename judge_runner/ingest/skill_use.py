"""Skill use that is not a skill call: reading a skill's SKILL.md with a read tool or ``cat``.

Some harnesses have no skill tool, or their skill tool finds nothing and the agent reads
``.agents/skills/<name>/SKILL.md`` itself (seen with gemini-cli). Such a call becomes a
skill-use step naming the skill's folder, so every harness's skill use counts the same way; the
call's tool and arguments are kept and its output becomes the step's skill body.
"""

from __future__ import annotations

from judge_runner.ingest import tools
from judge_runner.ingest.raw import RawKind, RawRun


def mark_skill_reads(run: RawRun) -> None:
    for step in run.steps:
        if step.kind is not RawKind.TOOL or step.arguments is None or step.is_error:
            continue
        name = tools.skill_read(step.tool, step.arguments)
        if name is not None:
            step.kind = RawKind.SKILL
            step.skill = name
            step.text, step.output = step.output, None  # the body, once
