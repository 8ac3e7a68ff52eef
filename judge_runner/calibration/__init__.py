"""Calibration: when a judge may decide, with a stated guarantee of agreement.

`select_threshold` chooses a confidence threshold on labelled dev cases by fixed-sequence
testing; a `Calibration` records it for one judge configuration; `load`/`validate`/`apply` are
how a judge uses it (decide at or above the threshold, abstain below). `calibrate` (the command)
builds one from a finished dev run, see `judge_runner.runs.calibrate`.
"""

from judge_runner.calibration.apply import apply, forced_decision
from judge_runner.calibration.model import (
    Calibration,
    CalibrationError,
    FitPrior,
    Quality,
    RulesFit,
    ThresholdTest,
    guarantee_sentence,
    judge_config_hash,
    load,
    save,
    validate,
)
from judge_runner.calibration.quality import describe, quality
from judge_runner.calibration.select import (
    Scored,
    Selection,
    error_bound,
    p_value,
    select_threshold,
)

__all__ = [
    "Calibration",
    "CalibrationError",
    "FitPrior",
    "Quality",
    "RulesFit",
    "Scored",
    "Selection",
    "ThresholdTest",
    "apply",
    "describe",
    "error_bound",
    "forced_decision",
    "guarantee_sentence",
    "judge_config_hash",
    "load",
    "p_value",
    "quality",
    "save",
    "select_threshold",
    "validate",
]
