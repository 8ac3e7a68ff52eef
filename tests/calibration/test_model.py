"""The calibration file: what a rules fit records, and files written before weights were
fitted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.calibration import (
    Calibration,
    CalibrationError,
    FitPrior,
    RulesFit,
    load,
    save,
)
from judge_runner.calibration.model import FORMAT_VERSION

FIT_BEFORE_WEIGHTS = {"scale": 1.2, "offset": -0.5, "fit_cases": 13, "fit_tasks": ["a", "b"]}
BEFORE_WEIGHTS = {  # a file `calibrate` wrote when it fitted scale and offset only
    "format": 1, "judge": "rules", "config_hash": "abc", "alpha": 0.2, "delta": 0.1,
    "threshold": None, "n": 13, "n_left_out": 13, "coverage": 0.0, "dev_agreement": None,
    "tests": [], "min_n": 8,
    "rules_fit": FIT_BEFORE_WEIGHTS,
    "threshold_tasks": ["c"], "source_run": "runs/dev",
}


def test_a_file_from_before_weights_were_fitted_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(BEFORE_WEIGHTS))
    fit = load(path).rules_fit
    assert fit is not None and (fit.scale, fit.offset) == (1.2, -0.5)
    assert fit.weights == {} and fit.support_weights == {} and fit.prior is None


def test_fitted_weights_and_their_prior_round_trip(tmp_path: Path) -> None:
    fit = RulesFit(scale=1.1, offset=-0.3, weights={"last_test_passed": 1.4},
                   support_weights={"no_deferral": 0.2}, prior=FitPrior(weight_sd=0.5),
                   fit_cases=13, fit_tasks=["a"])
    calibration = Calibration.model_validate({**BEFORE_WEIGHTS, "format": FORMAT_VERSION,
                                              "rules_fit": fit.model_dump()})
    save(calibration, tmp_path / "c.json")
    assert load(tmp_path / "c.json") == calibration
    assert load(tmp_path / "c.json").rules_fit == fit


def test_a_negative_weight_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    bad = {**FIT_BEFORE_WEIGHTS, "weights": {"last_test_passed": -1.0}}
    path.write_text(json.dumps({**BEFORE_WEIGHTS, "rules_fit": bad}))
    with pytest.raises(CalibrationError, match=r"rules_fit\.weights\.last_test_passed"):
        load(path)
    with pytest.raises(ValueError, match="greater than 0"):
        FitPrior(weight_sd=0.0)
