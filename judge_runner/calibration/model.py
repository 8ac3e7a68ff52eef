"""The calibration file (`calibrate --out calibration.json`): a typed record of one threshold
choice, what it promises and what it rests on.

A calibration belongs to one judge configuration (`config_hash`, see `judge_config_hash`): it
says at which confidence that judge's verdicts agreed with the verifier often enough on the
labelled dev cases, and applying it to another configuration is refused. `threshold` is None and
`coverage` 0 when no threshold passed: the judge then abstains on everything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.text import sha256_text
from judge_runner.validation import problems

FORMAT_VERSION = 2  # 2: a rules fit may carry fitted weights and its prior


class CalibrationError(ValueError):
    """A calibration file that cannot be read, or that does not belong to the judge."""


class ThresholdTest(BaseModel):
    """One step of the fixed sequence: the cases at or above `threshold`, and the test's result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float
    n: int  # dev cases decided at this threshold
    errors: int  # of them, disagreeing with the verifier
    p_value: float  # P(Binomial(n, α) ≤ errors): the chance of so few errors were the risk α
    error_bound: float  # one-sided Clopper–Pearson upper bound on the risk at level 1 − δ
    passed: bool


Positive = Annotated[float, Field(gt=0.0)]
Weight = Annotated[float, Field(ge=0.0)]


class FitPrior(BaseModel):
    """The Gaussian prior (an L2 penalty) of the rules judge's combination fit: each fitted
    weight ~ N(the skill's hand-set weight, weight_sd²), scale ~ N(scale, scale_sd²), offset ~
    N(0, offset_sd²). `weight_sd` None: the weights were not fitted (held at the skill's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    weight_sd: Positive | None
    scale: float = Field(default=1.0, gt=0.0)
    scale_sd: float = Field(default=0.5, gt=0.0)
    offset_sd: float = Field(default=1.0, gt=0.0)


class RulesFit(BaseModel):
    """The rules judge's log-odds combination fitted on dev cases the threshold never saw.

    `weights` maps check id → fitted `weight` (what a refutation subtracts, and what a support
    adds when the check has no `support_weight` of its own); `support_weights` maps check id →
    fitted `support_weight`. Files written before the weights were fitted have neither (nor a
    `prior`): the skill's weights then stand, with the fitted scale and offset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scale: float
    offset: float
    weights: dict[str, Weight] = Field(default_factory=dict)
    support_weights: dict[str, Weight] = Field(default_factory=dict)
    prior: FitPrior | None = None
    fit_cases: int
    fit_tasks: list[str]  # the tasks whose cases fitted the combination


class Quality(BaseModel):
    """How well a confidence tracks correctness on labelled cases (see `quality.py`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    accuracy: float
    brier: float
    ece: float
    aurc: float
    distinct: int  # different confidence values given


class Calibration(BaseModel):
    """What `calibrate` chose, for one judge configuration."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT_VERSION
    judge: str
    config_hash: str  # judge_config_hash of the dev run's judge
    alpha: float = Field(gt=0.0, lt=1.0)  # tolerated disagreement: agreement target 1 − α
    delta: float = Field(gt=0.0, lt=1.0)  # chance the guarantee may fail
    threshold: float | None  # decide at confidence ≥ threshold; None: no threshold passed
    n: int  # labelled dev cases the threshold was chosen on
    n_left_out: int = 0  # dev cases without a label, a confidence or a decision (errors)
    coverage: float  # share of the n decided at the threshold (0 when none passed)
    dev_agreement: float | None  # agreement on those decided dev cases
    tests: list[ThresholdTest] = Field(default_factory=list)  # the fixed sequence, in order
    min_n: int = 1  # decided dev cases a threshold needed to be tested at all
    rules_fit: RulesFit | None = None  # the rules judge only
    threshold_tasks: list[str] = Field(default_factory=list)  # tasks of the n cases
    quality: Quality | None = None  # of the confidence on the n cases
    # simulated-annotator runs: the first annotator's own stated confidence on the same cases,
    # to compare with the vote share
    stated_quality: Quality | None = None
    source_run: str = ""

    @property
    def agreement(self) -> float:
        return round(1.0 - self.alpha, 6)

    @property
    def sha256(self) -> str:
        return sha256_text(self.model_dump_json())

    def summary(self) -> dict[str, Any]:
        """What a judge's configuration records of the calibration it decides by."""
        return {"sha256": self.sha256, "alpha": self.alpha, "delta": self.delta, "n": self.n,
                "threshold": self.threshold, "coverage": self.coverage,
                "dev_agreement": self.dev_agreement,
                "rules_fit": self.rules_fit is not None}

    def guarantee(self) -> str:
        """The promise in one sentence, with what it rests on."""
        return guarantee_sentence(self.alpha, self.delta, self.n, self.threshold, self.coverage)


def guarantee_sentence(alpha: float, delta: float, n: int, threshold: float | None,
                       coverage: float) -> str:
    """What a calibration promises, in one sentence, with the assumption it rests on."""
    cases = f"{n} labelled dev case" + ("" if n == 1 else "s")
    if threshold is None:
        return (f"No guarantee: on {cases} no confidence threshold reached "
                f"{1 - alpha:.0%} agreement at δ = {delta:g}, so this judge abstains on every "
                "case.")
    return (f"If new cases are exchangeable with the {cases} it was calibrated "
            f"on (a task-disjoint split is a distribution shift, not exchangeable), then with "
            f"probability at least {1 - delta:.0%} the verdicts decided at confidence ≥ "
            f"{threshold:g} agree with the verifier at least {1 - alpha:.0%} of the time "
            f"(α = {alpha:g}, δ = {delta:g}, dev coverage {coverage:.0%}).")


def judge_config_hash(judge: str, config: dict[str, Any]) -> str:
    """The configuration a calibration belongs to: the judge's configuration without
    `allow_abstain` (abstaining is what the calibration decides) nor an applied calibration."""
    kept = {k: v for k, v in config.items() if k not in ("allow_abstain", "calibration")}
    return sha256_text(json.dumps({"judge": judge, "config": kept}, sort_keys=True,
                                  separators=(",", ":"), default=str))


def load(path: Path) -> Calibration:
    """Read a calibration file; CalibrationError naming the file and the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"cannot read calibration {path}: {exc.strerror or exc}") from None
    try:
        return Calibration.model_validate_json(text)
    except ValidationError as exc:
        raise CalibrationError(f"{path} is not a calibration file: "
                               f"{problems(exc, 'file', most=5)}") from None


def save(calibration: Calibration, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(calibration.model_dump_json(indent=2) + "\n", encoding="utf-8")


def validate(calibration: Calibration, judge: str, config: dict[str, Any],
             where: str = "calibration") -> None:
    """Refuse a calibration made for another judge configuration (CalibrationError)."""
    digest = judge_config_hash(judge, config)
    if calibration.judge != judge or calibration.config_hash != digest:
        raise CalibrationError(
            f"{where} was made for the {calibration.judge} judge with configuration "
            f"{calibration.config_hash[:12]}, not for this {judge} judge ({digest[:12]}): "
            "calibrate a dev run of this exact configuration")
