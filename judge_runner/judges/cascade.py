"""The cascade judge (``--judge cascade``): cheap stages decide what they are sure of, costlier
stages the rest.

Stages are named by ``-o stages=rules,direct:MODEL_A,agent:MODEL_B`` (any length; a stage is a
judge name, optionally with its model after a colon; without one it takes ``--model``). Without
``stages`` the cascade is the rules judge followed by ``-o second=NAME`` (default direct), and
its stages are called ``rules`` and ``model``.

Each stage sees only the cases every earlier stage left undecided (abstained on). A stage's
decided verdict (pass or fail) is final; an error of any stage is the case's error verdict
(never a pass or a fail, and never handed on); a case the rules judge cannot read is not sent
to a model.

When a stage abstains:

- with ``--calibration`` given once per stage (in stage order), every stage decides at or above
  its calibrated threshold and abstains below it (`calibrated.py`), the last one too: the case
  is then an abstention;
- with one file fewer than stages, the last stage is uncalibrated and forced to decide: the
  guarantee then covers only the calibrated stages, and the run's report says so;
- without calibrations, a rules stage abstains by its skill's `abstain_margin`, and every other
  stage but the last must be calibrated (otherwise it would decide every case and the stages
  after it would never run); the last stage decides (abstains only with ``--allow-abstain``).

With ``-o findings=true`` (the default) a stage right after a rules stage also gets the rules
judge's findings as a section marked as another judge's leads to check, not evidence to trust
(`briefing.py`).

Products: each stage writes into ``stages/<dir>/`` of the case folder (so replay finds a model's
transcript there); the case folder's plan.md and inspection_log.jsonl are those of the last
stage that ran, and verdict.json is the cascade's verdict with ``details["stage"]`` (the stage
that decided, or the last that ran), ``details["stages"]`` (what each stage that ran said: its
decision, forced decision, confidence, calibration) and the deciding stage's details.

Knobs: ``stages``, ``second`` (default direct), ``findings`` (default true), ``rules_skill`` (a
rules JudgeSkill directory; default the bundled one; ``--skill`` goes to the model stages that
take one).
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import StrictBool, field_validator

from judge_runner.calibration import forced_decision, load
from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.judges.base import Judge
from judge_runner.judges.briefing import TakesBriefing, render_briefing
from judge_runner.judges.calibrated import calibrated, takes_briefing
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import LOG_FILE, PLAN_FILE, VERDICT_FILE, read_log
from judge_runner.judges.registry import (
    JudgeOptions,
    JudgeSettings,
    build_judge,
    forwards,
    knobs_of,
    uses_flag,
)
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir

NAME = "cascade"
STAGES_DIR = "stages"
RULES_STAGE = "rules"
MODEL_STAGE = "model"
STAGE_JUDGES = frozenset({"rules", "direct", "agent", "rubric", "multi"})
SECOND_JUDGES = STAGE_JUDGES - {"rules"}


@dataclass(frozen=True)
class Stage:
    label: str  # as verdicts and reports name it
    dir: str  # under stages/ of the case folder
    judge: Judge
    calibrated: bool
    briefed: bool = False  # gets the rules judge's findings of the stage before


@dataclass(frozen=True)
class CascadeJudge:
    stages: tuple[Stage, ...]
    allow_abstain: bool = False
    name: str = NAME

    def config(self) -> dict[str, Any]:
        return {"judge": self.name, "allow_abstain": self.allow_abstain,
                "stages": [{"stage": s.label, "config": s.judge.config(),
                            "calibrated": s.calibrated, "briefed": s.briefed}
                           for s in self.stages]}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        said: list[dict[str, Any]] = []
        usage = Usage()
        briefing = ""
        for stage in self.stages:
            stage_dir = out_dir / STAGES_DIR / stage.dir
            if stage.briefed and briefing and takes_briefing(stage.judge):
                answer = cast(TakesBriefing, stage.judge).judge_briefed(case, stage_dir, briefing)
            else:
                answer = stage.judge.judge(case, stage_dir)
            forced = forced_decision(answer)
            usage = usage + answer.usage
            said.append({"stage": stage.label, "decision": answer.decision.value,
                         "forced": forced.value if forced else None,
                         "confidence": answer.confidence, "calibrated": stage.calibrated,
                         "briefed": bool(stage.briefed and briefing),
                         "dir": _rel(stage_dir, out_dir),
                         "usage": answer.usage.model_dump()})
            if answer.decision is not Decision.ABSTAIN:
                break
            briefing = (render_briefing(read_log(stage_dir), answer, case.fence)
                        if isinstance(stage.judge, RulesJudge) or _rules_inside(stage) else "")
        details: dict[str, Any] = {**answer.details, "stage": stage.label, "stages": said}
        if said[0]["stage"] == RULES_STAGE and len(said) > 1:
            details["rules"] = said[0]
        verdict = answer.model_copy(update={"judge": self.name, "details": details,
                                            "usage": usage})
        return _finish(out_dir, stage_dir, verdict, started)


def _rules_inside(stage: Stage) -> bool:
    inner = getattr(stage.judge, "inner", None)
    return isinstance(inner, RulesJudge)


def _rel(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()


def _finish(out_dir: Path, stage_dir: Path, verdict: Verdict, started: float) -> Verdict:
    """Copy the last stage's plan and log up, write the cascade's verdict."""
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
    """The cascade's own knobs; every other option goes to the model stages that take it."""

    stages: str | None = None  # e.g. "rules,direct:MODEL_A,agent:MODEL_B"
    second: str = "direct"  # without `stages`: rules, then this judge
    findings: StrictBool = True  # hand the rules judge's findings to the stage after it
    rules_skill: Path | None = None  # default: the bundled judgeskills/v2

    @field_validator("second")
    @classmethod
    def _a_model_judge(cls, name: str) -> str:
        if name not in SECOND_JUDGES:
            raise ValueError(f"cascade: second={name!r} is not a model judge; choose one of "
                             f"{', '.join(sorted(SECOND_JUDGES))}")
        return name

    @field_validator("stages")
    @classmethod
    def _known_stages(cls, text: str | None) -> str | None:
        if text is not None:
            parse_stages(text)
        return text

    def stage_specs(self) -> list[tuple[str, str | None]]:
        if self.stages is None:
            return [(RULES_STAGE, None), (self.second, None)]
        return parse_stages(self.stages)


def parse_stages(text: str) -> list[tuple[str, str | None]]:
    """``judge[:model]`` entries, comma-separated; ValueError for an unknown judge or fewer
    than two stages."""
    specs: list[tuple[str, str | None]] = []
    for entry in (e.strip() for e in text.split(",")):
        judge, _, model = entry.partition(":")
        if judge not in STAGE_JUDGES:
            raise ValueError(f"cascade: stage {entry!r} is not one of "
                             f"{', '.join(sorted(STAGE_JUDGES))} (optionally NAME:MODEL)")
        if judge == RULES_STAGE and model:
            raise ValueError(f"cascade: the rules stage takes no model ({entry!r})")
        specs.append((judge, model or None))
    if len(specs) < 2:
        raise ValueError(f"cascade: stages={text!r} names {len(specs)} stage; a cascade needs "
                         "at least two")
    return specs


def _labels(settings: CascadeSettings) -> list[tuple[str, str]]:
    """(label, dir) per stage: `rules`/`model` for the two-stage default, else the stage
    entries themselves (numbered when one repeats)."""
    specs = settings.stage_specs()
    if settings.stages is None:
        return [(RULES_STAGE, RULES_STAGE), (MODEL_STAGE, settings.second)]
    names = [f"{j}:{m}" if m else j for j, m in specs]
    labels = [f"{i}-{n}" if names.count(n) > 1 else n for i, n in enumerate(names, start=1)]
    return [(label, re.sub(r"[^A-Za-z0-9._-]+", "_", label)[:60]) for label in labels]


def stage_options(settings: CascadeSettings,
                  rest: JudgeOptions) -> list[tuple[str, JudgeOptions]]:
    """Each model stage's share of the options: its model, the flags and knobs its judge takes
    (the rules stage is built by the cascade itself and gets none). JudgeConfigError for a knob
    no stage takes."""
    shares: list[tuple[str, JudgeOptions]] = []
    taken: set[str] = set()
    for judge, model in settings.stage_specs():
        if judge == RULES_STAGE:
            continue
        update: dict[str, Any] = {"calibration": [], "allow_abstain": False}
        if model:
            update["model"] = model
        knobs = knobs_of(judge)
        if knobs is not None:  # e.g. -o annotators for a direct stage, not for an agent one
            update["extra"] = {k: v for k, v in rest.extra.items() if k in knobs}
        taken.update(update.get("extra", rest.extra))
        share = rest.model_copy(update=update)
        said = share.said()
        for flag in ("skill", "sandbox", "models"):
            if flag in said and not uses_flag(judge, flag):
                share = share.model_copy(update={flag: [] if flag == "models" else None})
        shares.append((judge, share))
    stray = sorted(set(rest.extra) - taken)
    if stray:
        names = ", ".join(f"-o {k}" for k in stray)
        stages = ", ".join(judge for judge, _ in shares)
        own = ", ".join(sorted(set(CascadeSettings.model_fields) - {"allow_abstain"}))
        raise JudgeConfigError(f"{names}: no stage of this cascade takes it (model stages: "
                               f"{stages}; the cascade's own knobs: {own})")
    return shares


@forwards(CascadeSettings, "cascade", to=stage_options)
def make_judge(settings: CascadeSettings, rest: JudgeOptions) -> CascadeJudge:
    """Build the stages. Raises JudgeConfigError for an unknown stage judge, a wrong number of
    calibration files, an uncalibrated model stage before the last, or findings for a judge
    that cannot take them; CalibrationError for a calibration of another configuration; a
    stage's own factory raises for its problems (missing model, unknown knob, ...)."""
    specs = settings.stage_specs()
    files = list(rest.calibration)
    if files and len(files) not in (len(specs), len(specs) - 1):
        raise JudgeConfigError(f"cascade: {len(specs)} stages take {len(specs)} calibration "
                               f"files (or {len(specs) - 1}, the last stage then forced), got "
                               f"{len(files)}")
    shares = iter(stage_options(settings, rest))
    stages: list[Stage] = []
    for index, ((judge_name, _), (label, folder)) in enumerate(zip(specs, _labels(settings),
                                                                   strict=True)):
        last = index == len(specs) - 1
        if judge_name == RULES_STAGE:
            judge: Judge = RulesJudge(settings.rules_skill or default_skill_dir(),
                                      allow_abstain=not last or settings.allow_abstain)
        else:
            name, share = next(shares)
            if last and settings.allow_abstain:
                share = share.model_copy(update={"allow_abstain": True})
            judge = build_judge(name, share)
        calibration = files[index] if index < len(files) else None
        if calibration is not None:
            judge = calibrated(judge, load(calibration), str(calibration))
        elif not last and judge_name != RULES_STAGE:
            raise JudgeConfigError(f"cascade: stage {label!r} is not the last and has no "
                                   "calibration, so it would decide every case; give one "
                                   "--calibration per stage")
        briefed = (settings.findings and index > 0 and specs[index - 1][0] == RULES_STAGE)
        if briefed and not takes_briefing(judge):
            if settings.stages is None:
                raise JudgeConfigError(f"cascade: the {judge_name} judge cannot take the rules "
                                       "judge's findings; use -o findings=false")
            briefed = False
        stages.append(Stage(label=label, dir=folder, judge=judge,
                            calibrated=calibration is not None, briefed=briefed))
    return CascadeJudge(stages=tuple(stages), allow_abstain=settings.allow_abstain)
