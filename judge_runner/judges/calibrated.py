"""A judge that decides only where its calibration says it agrees with the verifier.

`CalibratedJudge` wraps any judge with a `Calibration` made for that judge's configuration
(checked when it is built): each verdict at or above the threshold keeps its decision, one below
it abstains (`judge_runner.calibration.apply`), and verdict.json is rewritten to say so. For the
rules judge, a calibration that refitted the log-odds combination (`rules_fit`) replaces the
skill's shipped (scale, offset) with the fitted ones before anything is judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_runner.calibration import Calibration, apply, validate
from judge_runner.cases import CasePackage
from judge_runner.core import Verdict
from judge_runner.judges.base import Judge
from judge_runner.judges.briefing import TakesBriefing
from judge_runner.judges.products import VERDICT_FILE


@dataclass(frozen=True)
class CalibratedJudge:
    inner: Judge
    calibration: Calibration

    @property
    def name(self) -> str:
        return self.inner.name

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), "calibration": self.calibration.summary()}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        return self._decide(self.inner.judge(case, out_dir), out_dir)

    def judge_briefed(self, case: CasePackage, out_dir: Path, briefing: str) -> Verdict:
        """`judge` with another judge's findings, for an inner judge that takes them."""
        if not isinstance(self.inner, TakesBriefing):
            raise TypeError(f"the {self.inner.name} judge takes no briefing")
        return self._decide(self.inner.judge_briefed(case, out_dir, briefing), out_dir)

    def _decide(self, verdict: Verdict, out_dir: Path) -> Verdict:
        verdict = apply(self.calibration, verdict)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / VERDICT_FILE).write_text(verdict.model_dump_json(indent=2) + "\n",
                                            encoding="utf-8")
        return verdict


def takes_briefing(judge: Judge) -> bool:
    """Whether `judge` (calibrated or not) can be shown another judge's findings."""
    inner = judge.inner if isinstance(judge, CalibratedJudge) else judge
    return isinstance(inner, TakesBriefing)


def calibrated(judge: Judge, calibration: Calibration, where: str = "calibration") -> Judge:
    """`judge` deciding by `calibration`; CalibrationError when it was made for another judge
    configuration, RulesError when it carries a rules fit for a skill that cannot take one."""
    validate(calibration, judge.name, judge.config(), where)
    fit = calibration.rules_fit
    if fit is not None:
        from judge_runner.judges.rules import RulesJudge

        if isinstance(judge, RulesJudge):
            judge = judge.refitted(fit.scale, fit.offset)
    return CalibratedJudge(judge, calibration)
