"""Risk–coverage: the curve from per-verdict confidences, and its plot in report.html rendered by
headless Chromium."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, Label
from judge_runner.judges import Decision, Verdict
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.runs.records import CaseRecord, load_summary
from judge_runner.runs.riskcov import risk_coverage, risk_coverage_svg
from judge_runner.runs.runner import run_eval
from tests.casebuilder import mixed_certainty_dataset
from tests.conftest import require
from tests.runs.test_report import CHROMIUM_FLAGS


def record(case_id: str, label: Label, decision: Decision, forced: str | None,
           confidence: float | None) -> CaseRecord:
    details = {} if forced is None else {"forced": forced, "confidence": confidence}
    verdict = Verdict(case_id=case_id, judge="j", decision=decision, details=details)
    return CaseRecord(case_id=case_id, task="t", domain=None, label=label, decision=decision,
                      correct=None, verdict=verdict)


def test_curve_sorts_by_confidence_and_marks_the_operating_point() -> None:
    records = [record("a", Label.PASS, Decision.PASS, "pass", 0.9),
               record("b", Label.FAIL, Decision.FAIL, "fail", 0.8),
               record("c", Label.FAIL, Decision.ABSTAIN, "pass", 0.1),
               record("d", Label.PASS, Decision.ABSTAIN, "pass", 0.05),
               record("e", Label.PASS, Decision.ERROR, None, None)]
    curve = risk_coverage(records)
    assert curve is not None and curve.n == 4 and curve.n_left_out == 1
    assert [(p.coverage, p.accuracy) for p in curve.points] == [
        (0.25, 1.0), (0.5, 1.0), (0.75, 0.666667), (1.0, 0.75)]
    assert (curve.operating_coverage, curve.operating_accuracy) == (0.5, 1.0)
    assert curve.accuracy_at(0.5) == 1.0 and curve.accuracy_at(0.6) == 0.666667
    svg = risk_coverage_svg(curve)
    assert svg.startswith("<svg") and 'class="operating-point"' in svg and "<polyline" in svg


def test_no_curve_when_a_judge_reports_no_confidence_for_some_case() -> None:
    records = [record("a", Label.PASS, Decision.PASS, "pass", 0.9),
               record("b", Label.FAIL, Decision.FAIL, None, None)]
    assert risk_coverage(records) is None


@pytest.fixture(scope="module")
def rules_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("riskcov")
    ds = Dataset(mixed_certainty_dataset(root / "ds"))
    judge = RulesJudge(default_skill_dir(), allow_abstain=True)
    run_eval(judge, ds, ds.case_ids(), root / "run", progress=False)
    return root / "run"


def test_rules_run_records_the_curve_in_metrics_and_report(rules_run: Path) -> None:
    summary = load_summary(rules_run)
    curve = summary.risk_coverage
    assert curve is not None and curve.n == 4
    assert (curve.operating_coverage, curve.operating_accuracy) == (0.5, 1.0)
    html = (rules_run / "report.html").read_text()
    assert 'id="risk-coverage-plot"' in html and "operating point (0.50, 1.00)" in html


def test_chromium_renders_the_risk_coverage_plot(rules_run: Path) -> None:
    require(shutil.which("chromium") is not None, "chromium not installed")
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              "--dump-dom", (rules_run / "report.html").resolve().as_uri()],
                             capture_output=True, text=True, timeout=120)
        shot = Path(profile) / "shot.png"
        png = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              f"--screenshot={shot}", "--window-size=1280,1600",
                              (rules_run / "report.html").resolve().as_uri() + "#risk-coverage"],
                             capture_output=True, text=True, timeout=120)
        assert png.returncode == 0, png.stderr[-500:]
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert dom.returncode == 0, dom.stderr[-500:]
    rendered = dom.stdout
    for marker in ('id="risk-coverage"', 'id="risk-coverage-plot"', 'class="curve"',
                   'class="operating-point"', "accuracy on decided"):
        assert marker in rendered, marker
