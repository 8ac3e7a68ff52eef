"""The viewer on the shared real SkillsBench trials judged by the rules judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.view.browser import Browser

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.shared
@pytest.mark.slow
def test_real_run_pages_load_cleanly_with_every_citation_landing(
    real_dataset: Path, tmp_path: Path, chromium: Browser
) -> None:
    run = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "eval", str(real_dataset), "--judge", "rules", "--skill", str(REPO / "judgeskills" / "v1"),
        "--sandbox", "none", "--run-dir", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["view", str(run)])
    assert result.exit_code == 0, result.output
    pages = sorted((run / "view" / "cases").glob("*.html"))
    assert len(pages) == len(list((real_dataset / "cases").iterdir()))
    citations = 0
    for path in [run / "view" / "index.html", *pages]:
        report = chromium.check(path)
        assert report.ok, (path, report)
        citations += report.citations
    assert citations > len(pages)
