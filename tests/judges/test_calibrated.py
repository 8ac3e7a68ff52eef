"""A calibrated judge: the rules judge with the combination `calibrate` fitted (weights, scale,
offset), through the CLI, and a calibration file from before weights were fitted."""

from __future__ import annotations

import math
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.calibration import Calibration, RulesFit, judge_config_hash, load
from judge_runner.cli import app
from judge_runner.core import Outcome
from judge_runner.judges import CalibratedJudge, calibrated
from judge_runner.judges.products import read_log
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.runs.records import load_records
from tests.casebuilder import last_tests_dataset


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def probabilities(run_dir: Path) -> dict[str, float]:
    """Case id → the pass probability its rules verdict states."""
    return {r.case_id: r.verdict.details["probability"] for r in load_records(run_dir)}


def test_the_fitted_combination_decides_the_applied_probabilities(tmp_path: Path) -> None:
    data = last_tests_dataset(tmp_path / "data")
    dev, applied = tmp_path / "dev", tmp_path / "applied"
    invoke("eval", str(data), "--judge", "rules", "--run-dir", str(dev), "--no-progress")
    out = tmp_path / "calibration.json"
    invoke("calibrate", str(dev), "--agreement", "0.5", "--delta", "0.5", "--out", str(out))
    fit = load(out).rules_fit
    assert fit is not None and fit.prior is not None and fit.prior.weight_sd == 0.5
    assert fit.weights["last_test_passed"] > 1.0  # it predicts the label: it gained weight
    invoke("eval", str(data), "--judge", "rules", "--calibration", str(out), "--run-dir",
           str(applied), "--no-progress")

    skill = RulesJudge(default_skill_dir()).rules
    before, after = probabilities(dev), probabilities(applied)
    assert before.keys() == after.keys() and len(after) == 24
    for case_id, probability in after.items():
        log = read_log(applied / "cases" / case_id)
        evidence = 0.0
        for inspection in log:
            spec = next((c for c in skill.check if c.id == inspection.check), None)
            if spec is None:
                continue  # the judge-address guard: it never supports
            if inspection.outcome is Outcome.REFUTES:
                evidence -= fit.weights[spec.id]
            elif inspection.outcome is Outcome.SUPPORTS:
                evidence += (fit.support_weights.get(spec.id, fit.weights[spec.id])
                             if spec.support_weight != 0.0 else 0.0)
        expected = 1 / (1 + math.exp(-(fit.scale * evidence + fit.offset)))
        assert probability == round(expected, 6), case_id
        assert probability != before[case_id], case_id  # the fit moved every case


def test_a_calibration_from_before_weights_were_fitted_refits_scale_and_offset_only() -> None:
    judge = RulesJudge(default_skill_dir())
    calibration = Calibration(
        judge="rules", config_hash=judge_config_hash("rules", judge.config()), alpha=0.2,
        delta=0.1, threshold=0.9, n=10, coverage=0.5, dev_agreement=0.9,
        rules_fit=RulesFit(scale=2.0, offset=-1.0, fit_cases=10, fit_tasks=["a"]))
    wrapped = calibrated(judge, calibration)
    assert isinstance(wrapped, CalibratedJudge) and isinstance(wrapped.inner, RulesJudge)
    inner = wrapped.inner
    assert (inner.rules.score.scale, inner.rules.score.offset) == (2.0, -1.0)
    assert inner.rules.check == judge.rules.check
