"""Rendering the agent judge's prompts from the jinja2 templates shipped in this package.

The system prompt depends only on the JudgeSkill and run options, never on the case: it is the
cacheable prefix and must be byte-identical for every case of a run. Everything about the case
goes into the first user message.
"""

from __future__ import annotations

import jinja2

from judge_runner.cases import CasePackage
from judge_runner.core import TRAJECTORY_FILE
from judge_runner.skills import JudgeSkill
from judge_runner.templates import environment
from judge_runner.untrusted import TRUST_RULE


def _template(name: str) -> jinja2.Template:
    return environment("judge_runner.judges.agent", trim=True).get_template(name)


def render_system(skill: JudgeSkill | None, allow_abstain: bool) -> str:
    return _template("system.md.j2").render(
        skill=skill, allow_abstain=allow_abstain, trust_rule=TRUST_RULE
    )


def render_case(case: CasePackage, page_chars: int) -> str:
    """The case overview. Reads only the case package (instruction, case.json, trajectory size).

    Raises OSError / pydantic.ValidationError when the package files are missing or malformed.
    """
    trajectory_chars = len((case.root / TRAJECTORY_FILE).read_text(encoding="utf-8"))
    if case.trajectory.case_id != case.meta.id:  # parsing validates the file, too
        raise ValueError(f"{case.root}: trajectory.json is for case {case.trajectory.case_id!r}, "
                         f"case.json for {case.meta.id!r}")
    return _template("case.md.j2").render(
        meta=case.meta,
        fence=case.fence,
        instruction=case.instruction.strip(),
        trajectory_chars=trajectory_chars,
        page_chars=page_chars,
        pages=max(1, -(-trajectory_chars // page_chars)),
    )


