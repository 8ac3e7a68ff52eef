"""A deterministic judge for evolution tests whose verdicts depend on its JudgeSkill.

It reads `artifacts/answer.txt` of a case and fails the case when the answer names a signal
listed in the skill's SKILL.md as a line `- fail-on: <signal>`; otherwise it passes. So a skill
rewrite that adds the right `fail-on` lines fixes false passes, and a careless one breaks passes.

Selected on the command line as `--judge tests.evolve.skill_judge:make_judge`. Each judgment
appends a line `<skill hash> <case id>` to the file named by $JR_TEST_CALLS_LOG (when set), so a
test can count how often each (skill, case) pair was judged across processes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from judge_runner.cases import CasePackage
from judge_runner.judges import Decision, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.products import write_products
from judge_runner.judges.registry import JudgeOptions
from judge_runner.models import Usage
from judge_runner.skills.model import hash_directory
from tests.runs.scripted_judge import logged_answer

_RULE = re.compile(r"^- fail-on: (\S+)\s*$", re.MULTILINE)


class SkillJudge:
    name = "skill-test"

    def __init__(self, skill: Path, latency: float = 0.0) -> None:
        self.skill_hash = hash_directory(skill)
        self.signals = sorted(set(_RULE.findall((skill / "SKILL.md").read_text("utf-8"))))
        self.latency = latency
        calls_log = os.environ.get("JR_TEST_CALLS_LOG")
        self.calls_log = Path(calls_log) if calls_log else None

    def config(self) -> dict[str, Any]:
        return {"skill_hash": self.skill_hash}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        answer = logged_answer(case, self.calls_log, f"{self.skill_hash[:16]} {case.id}",
                               self.latency)
        hit = next((s for s in self.signals if s in answer), None)
        plan = Plan(
            items=[
                PlanItem(
                    id="P1",
                    what="look for failure signals in the answer",
                    where="artifacts/answer.txt",
                    support="no listed signal",
                    refute="a listed signal",
                    critical=True,
                )
            ]
        )
        log = [
            Inspection(
                id="I1",
                plan_item="P1",
                check="read artifacts/answer.txt",
                finding=f"answer {answer!r}; signal {hit or 'none'}",
                outcome=Outcome.REFUTES if hit else Outcome.SUPPORTS,
                critical=True,
            )
        ]
        verdict = Verdict(
            case_id=case.id,
            judge=self.name,
            decision=Decision.FAIL if hit else Decision.PASS,
            rationale=f"signal {hit} found" if hit else "no failure signal found",
            citations=["I1"],
            usage=Usage(calls=1, cost_usd=0.001),
        )
        write_products(out_dir, plan, log, verdict)
        return verdict


def make_judge(options: JudgeOptions) -> SkillJudge:
    if options.skill is None:
        raise ValueError("the skill test judge needs --skill")
    latency = float(os.environ.get("JR_TEST_LATENCY", "0") or 0)
    return SkillJudge(options.skill, latency=latency)
