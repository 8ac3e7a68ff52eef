"""The cascade judge (``--judge cascade``): the rules judge decides what it is sure of, a model
judge the rest.

Stage 1 is the rules judge with abstention on (its `[verdict] abstain_margin` decides what
"sure" means, on its calibrated probability). A case it decides (pass or fail) is final and costs
nothing. A case it abstains on goes to stage 2, the model judge named by ``-o second=NAME``
(direct, agent, rubric or multi; built from the same --model, --skill, --sandbox, --base-url and
the remaining -o knobs). With ``-o findings=true`` (the default) stage 2 also gets the rules
judge's findings as a section marked as another judge's leads to check, not evidence to trust
(`briefing.py`).

Products: each stage writes into ``stages/<stage>/`` of the case folder (so replay finds the
model's transcript there); the case folder's plan.md and inspection_log.jsonl are those of the
deciding stage, and verdict.json is the cascade's verdict with ``details["stage"]`` ("rules" or
"model"), the rules stage's probability and, for model-stage cases, the model judge's details.
An error of either stage is an error verdict (never a pass or a fail); a case the rules judge
cannot read is not sent to the model.

Knobs: ``second`` (default direct), ``findings`` (default true), ``rules_skill`` (a rules
JudgeSkill directory; default the bundled one; ``--skill`` goes to the second judge).
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import StrictBool, field_validator

from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Verdict
from judge_runner.judges.base import Judge
from judge_runner.judges.briefing import TakesBriefing, render_briefing
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import LOG_FILE, PLAN_FILE, VERDICT_FILE, read_log
from judge_runner.judges.registry import JudgeOptions, JudgeSettings, build_judge, forwards
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir

NAME = "cascade"
STAGES_DIR = "stages"
RULES_STAGE = "rules"
MODEL_STAGE = "model"
SECOND_JUDGES = frozenset({"direct", "agent", "rubric", "multi"})
OWN_KNOBS = frozenset({"second", "findings", "rules_skill"})


@dataclass(frozen=True)
class CascadeJudge:
    rules: RulesJudge
    second: Judge
    second_name: str
    findings: bool = True
    allow_abstain: bool = False
    name: str = NAME

    def config(self) -> dict[str, Any]:
        return {"judge": self.name, "rules": self.rules.config(), "second": self.second_name,
                "second_config": self.second.config(), "findings": self.findings,
                "allow_abstain": self.allow_abstain}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        rules_dir = out_dir / STAGES_DIR / RULES_STAGE
        first = self.rules.judge(case, rules_dir)
        summary = {"decision": first.decision.value, "score": first.score,
                   "probability": first.details.get("probability"),
                   "confidence": first.details.get("confidence"), "dir": _rel(rules_dir, out_dir)}
        if first.decision is not Decision.ABSTAIN:  # decided, or unreadable: no model call
            verdict = first.model_copy(update={
                "judge": self.name,
                "details": {**first.details, "stage": RULES_STAGE, "rules": summary}})
            return _finish(out_dir, rules_dir, verdict, started)
        second_dir = out_dir / STAGES_DIR / self.second_name
        briefing = render_briefing(read_log(rules_dir), first) if self.findings else ""
        if briefing and isinstance(self.second, TakesBriefing):
            answer = self.second.judge_briefed(case, second_dir, briefing)
        else:
            answer = self.second.judge(case, second_dir)
        details: dict[str, Any] = {"stage": MODEL_STAGE, "second": self.second_name,
                                   "rules": summary, "second_details": answer.details,
                                   "briefed": bool(briefing), "dir": _rel(second_dir, out_dir)}
        if "evidence" in answer.details:
            details["evidence"] = answer.details["evidence"]
        verdict = answer.model_copy(update={"judge": self.name, "details": details})
        return _finish(out_dir, second_dir, verdict, started)


def _rel(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()


def _finish(out_dir: Path, stage_dir: Path, verdict: Verdict, started: float) -> Verdict:
    """Copy the deciding stage's plan and log up, write the cascade's verdict."""
    verdict = verdict.model_copy(update={"duration_s": round(time.monotonic() - started, 3)})
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (PLAN_FILE, LOG_FILE):
        source = stage_dir / name
        if source.is_file():
            shutil.copyfile(source, out_dir / name)
        else:
            (out_dir / name).unlink(missing_ok=True)
    (out_dir / VERDICT_FILE).write_text(verdict.model_dump_json(indent=2) + "\n",
                                        encoding="utf-8")
    return verdict


class CascadeSettings(JudgeSettings):
    """The cascade's own knobs; every other option goes to the second judge."""

    second: str = "direct"
    findings: StrictBool = True  # hand the rules judge's findings to the second judge
    rules_skill: Path | None = None  # default: the bundled judgeskills/v2

    @field_validator("second")
    @classmethod
    def _a_model_judge(cls, name: str) -> str:
        if name not in SECOND_JUDGES:
            raise ValueError(f"cascade: second={name!r} is not a model judge; choose one of "
                             f"{', '.join(sorted(SECOND_JUDGES))}")
        return name


def _second(settings: CascadeSettings) -> str:
    return settings.second


@forwards(CascadeSettings, "cascade", to=_second)
def make_judge(settings: CascadeSettings, second_options: JudgeOptions) -> CascadeJudge:
    """Build the cascade. Raises JudgeConfigError for an unknown second judge, a bad
    ``findings`` value or findings for a judge that cannot take them; the second judge's own
    factory raises for its problems (missing model, unknown knob, ...)."""
    rules = RulesJudge(settings.rules_skill or default_skill_dir(), allow_abstain=True)
    second = build_judge(settings.second, second_options)
    if settings.findings and not isinstance(second, TakesBriefing):
        raise JudgeConfigError(f"cascade: the {settings.second} judge cannot take the rules "
                               "judge's findings; use -o findings=false")
    return CascadeJudge(rules=rules, second=second, second_name=settings.second,
                        findings=settings.findings, allow_abstain=settings.allow_abstain)
