"""A calibration from a run's records, and applying it: decide at or above the threshold,
abstain below, refuse another configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judge_runner.calibration import (
    Calibration,
    CalibrationError,
    apply,
    judge_config_hash,
    validate,
)
from judge_runner.core import Decision, Label, Usage, Verdict
from judge_runner.jsonl import write_models
from judge_runner.runs.calibrate import CalibrateError, calibrate_run
from judge_runner.runs.records import CaseRecord, RunSummary

CONFIG: dict[str, Any] = {"judge": "direct", "model": "m", "allow_abstain": False}


def _record(i: int, confidence: float | None, right: bool | None,
            decision: Decision = Decision.PASS) -> CaseRecord:
    label = None if right is None else (Label.PASS if right else Label.FAIL)
    verdict = Verdict(case_id=f"c{i:02d}", judge="direct", decision=decision,
                      confidence=confidence, error="boom" if decision is Decision.ERROR else None)
    return CaseRecord(case_id=f"c{i:02d}", task=f"t{i % 5}", domain=None, label=label,
                      decision=decision, correct=None, verdict=verdict)


def _run(root: Path, records: list[CaseRecord], judge: str = "direct") -> Path:
    root.mkdir(parents=True)
    write_models(root / "verdicts.jsonl", records)
    summary = RunSummary(judge=judge, config_hash="x", config=CONFIG, dataset="d",
                         n_cases=len(records), n_labeled=0, n_judged_now=0, n_resumed=0,
                         usage=Usage(), wall_seconds=0.0, metrics=None)
    (root / "metrics.json").write_text(summary.model_dump_json())
    return root


def test_a_run_calibrates_on_its_labelled_confident_cases(tmp_path: Path) -> None:
    records = [_record(i, 0.95, True) for i in range(12)]  # 0.8^12 = 0.069 <= 0.1
    records += [_record(12 + i, 0.6, i % 2 == 0) for i in range(16)]
    records += [_record(40, 0.99, None), _record(41, None, True, Decision.ERROR)]
    calibration = calibrate_run(_run(tmp_path / "run", records), alpha=0.2, delta=0.1)
    assert calibration.threshold == 0.95 and calibration.n == 28
    assert calibration.n_left_out == 2 and calibration.coverage == round(12 / 28, 6)
    assert calibration.config_hash == judge_config_hash("direct", CONFIG)
    assert calibration.rules_fit is None
    assert "exchangeable" in calibration.guarantee()


def test_a_cascade_run_or_an_unlabelled_one_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CalibrateError, match="calibrate a dev run of each stage"):
        calibrate_run(_run(tmp_path / "c", [_record(1, 0.9, True)], judge="cascade"),
                      alpha=0.2, delta=0.1)
    with pytest.raises(CalibrateError, match="no labelled case"):
        calibrate_run(_run(tmp_path / "u", [_record(1, 0.9, None)]), alpha=0.2, delta=0.1)


def _calibration(threshold: float | None) -> Calibration:
    return Calibration(judge="direct", config_hash=judge_config_hash("direct", CONFIG),
                       alpha=0.2, delta=0.1, threshold=threshold, n=20,
                       coverage=0.5 if threshold else 0.0, dev_agreement=None)


def test_apply_decides_at_or_above_and_abstains_below() -> None:
    calibration = _calibration(0.8)
    sure = Verdict(case_id="a", judge="direct", decision=Decision.FAIL, confidence=0.8)
    unsure = sure.model_copy(update={"confidence": 0.79})
    silent = sure.model_copy(update={"confidence": None})
    own = Verdict(case_id="a", judge="rules", decision=Decision.ABSTAIN, confidence=0.9,
                  details={"forced": "pass"})
    error = Verdict(case_id="a", judge="direct", decision=Decision.ERROR, error="x")
    assert apply(calibration, sure).decision is Decision.FAIL
    below = apply(calibration, unsure)
    assert below.decision is Decision.ABSTAIN and below.details["forced"] == "fail"
    assert "below the calibrated threshold 0.8" in below.rationale
    assert apply(calibration, silent).decision is Decision.ABSTAIN
    assert apply(calibration, own).decision is Decision.PASS  # the threshold, not the margin
    assert apply(calibration, error) == error
    nothing = apply(_calibration(None), sure)
    assert nothing.decision is Decision.ABSTAIN and "no calibrated threshold" in nothing.rationale


def test_another_configuration_is_refused() -> None:
    calibration = _calibration(0.8)
    validate(calibration, "direct", {**CONFIG, "allow_abstain": True})  # abstaining is ours
    with pytest.raises(CalibrationError, match="calibrate a dev run of this exact"):
        validate(calibration, "direct", {**CONFIG, "model": "other"})
