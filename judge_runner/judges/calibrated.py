"""A judge that decides only where its calibration says it agrees with the verifier.

`CalibratedJudge` wraps any judge with a `Calibration` made for that judge's configuration
(checked when it is built): each verdict at or above the threshold keeps its decision, one below
it abstains (`judge_runner.calibration.apply`), and verdict.json is rewritten to say so. For the
rules judge, a calibration that refitted the log-odds combination (`rules_fit`) replaces the
skill's shipped weights, scale and offset with the fitted ones before anything is judged (a
calibration file written before weights were fitted replaces scale and offset only).

A calibration in which no threshold passed decides nothing, so a judge that costs model calls
is not asked at all: every case abstains at once, saying why (`details["calibration"]["asked"]`
is false), and spends nothing. The rules judge, which costs nothing, still judges, so that its
forced verdicts and confidences stay in the run (the risk–coverage curve).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge_runner.calibration import Calibration, apply, validate
from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Verdict
from judge_runner.judges.base import Judge
from judge_runner.judges.briefing import TakesBriefing
from judge_runner.judges.products import VERDICT_FILE, write_products

FREE_JUDGE = "rules"  # costs no model call: judged even without a threshold


@dataclass(frozen=True)
class CalibratedJudge:
    inner: Judge
    calibration: Calibration

    @property
    def name(self) -> str:
        return self.inner.name

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), "calibration": self.calibration.summary()}

    @property
    def asks(self) -> bool:
        """Whether the inner judge is asked at all (see the module docstring)."""
        return self.calibration.threshold is not None or self.inner.name == FREE_JUDGE

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        if not self.asks:
            return self._unasked(case, out_dir)
        return self._decide(self.inner.judge(case, out_dir), out_dir)

    def judge_briefed(self, case: CasePackage, out_dir: Path, briefing: str) -> Verdict:
        """`judge` with another judge's findings, for an inner judge that takes them."""
        if not isinstance(self.inner, TakesBriefing):
            raise TypeError(f"the {self.inner.name} judge takes no briefing")
        if not self.asks:
            return self._unasked(case, out_dir)
        return self._decide(self.inner.judge_briefed(case, out_dir, briefing), out_dir)

    def _unasked(self, case: CasePackage, out_dir: Path) -> Verdict:
        note = {"threshold": None, "confidence": None, "decided": False, "asked": False,
                "sha256": self.calibration.sha256}
        verdict = Verdict(
            case_id=case.root.name, judge=self.inner.name, decision=Decision.ABSTAIN,
            rationale="abstained without asking the judge: its calibration has no threshold "
                      "(none passed on the dev cases), so none of its verdicts would be decided",
            details={"calibration": note})
        write_products(out_dir, None, [], verdict)
        return verdict

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
            judge = judge.refitted(fit.scale, fit.offset, fit.weights, fit.support_weights)
    return CalibratedJudge(judge, calibration)
