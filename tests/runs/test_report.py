"""report.html: self-contained, rendered by headless Chromium, screenshot by the script."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, Domain, Label
from judge_runner.judges.registry import JudgeOptions, build_judge
from judge_runner.runs.records import load_records, load_summary
from judge_runner.runs.report import render_markdown
from judge_runner.runs.runner import run_eval
from tests.casebuilder import AnswerCase, answer_dataset, mixed_answers
from tests.conftest import REPO, require

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    specs = [*mixed_answers(9),
             AnswerCase("case-err", "task-x", Domain.ENERGY, Label.PASS, "raise"),
             AnswerCase("case-<b>", "task-x", Domain.ENERGY, Label.FAIL, "abstain"),
             AnswerCase("case-uns", "task-x", Domain.ENERGY, Label.FAIL, "unsupported")]
    ds = Dataset(answer_dataset(root / "ds", specs))
    judge = build_judge("tests.runs.scripted_judge:make_judge", JudgeOptions())
    run_eval(judge, ds, ds.case_ids(), root / "run", progress=False)
    return root / "run"


def test_report_is_self_contained(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text()
    # nothing is fetched: no src/href to anything, no scripts, no external stylesheets
    assert not re.search(r"""(src|href)\s*=""", html)
    assert "<script" not in html and "<link" not in html
    assert html.count("<svg") >= 3
    assert "case-&lt;b&gt;" in html and "case-<b>" not in html  # escaped, never injected
    assert "scripted failure on case-err" in html  # the error reason is shown
    assert 'id="case-case-000"' in html and "read the answer file" in html  # plan drill-down


def test_markdown_report_lists_undecided_cases(run_dir: Path) -> None:
    md = (run_dir / "report.md").read_text()
    assert "| balanced accuracy |" in md
    assert "`case-err` judged error" in md and "judged abstain" in md
    # deterministic: rendering again from the saved run gives the same file
    assert render_markdown(load_summary(run_dir), load_records(run_dir)) == md


def test_reports_count_unsupported_verdicts_and_unverified_quotes(run_dir: Path) -> None:
    summary = load_summary(run_dir)
    assert (summary.n_unsupported, summary.n_unverified_quotes) == (1, 2)
    md = (run_dir / "report.md").read_text()
    assert "- unsupported verdicts (citations did not resolve): 1" in md
    assert "- unverified evidence quotes (not found in the cited output): 2" in md
    html = (run_dir / "report.html").read_text()
    assert "<td>unsupported verdicts (citations did not resolve)</td><td>1</td>" in html
    assert "<td>unverified evidence quotes</td><td>2</td>" in html
    assert '<span class="error">unsupported</span>' in html


def test_chromium_renders_report_and_script_screenshots(run_dir: Path) -> None:
    script = REPO / "scripts" / "screenshot-report"
    png = run_dir / "report.png"
    done = subprocess.run([str(script), str(run_dir / "report.html"), str(png)],
                          capture_output=True, text=True, timeout=300)
    require(done.returncode == 0 or shutil.which("chromium") is not None,
            f"chromium unavailable: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 2000)
    assert len(data) > 20_000  # a blank page compresses to a few kB
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              "--dump-dom", (run_dir / "report.html").resolve().as_uri()],
                             capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-500:]
    rendered = dom.stdout
    for marker in ('id="summary-table"', 'id="confusion-table"', 'id="domain-table"',
                   'id="cost-table"', "<svg", "<rect", "balanced accuracy"):
        assert marker in rendered, marker
