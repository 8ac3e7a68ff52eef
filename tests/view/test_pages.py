"""The written pages: escaping, the label kept out of the judge's products, index flags and
navigation."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.runs.runner import RunResult
from judge_runner.view.pages import RunPages, ViewError, page_name, write_run_pages
from tests.view import runs


@pytest.fixture(scope="module")
def pages(citing: RunResult) -> RunPages:
    return write_run_pages(citing.run_dir)


def test_hostile_text_is_shown_escaped_never_as_markup(pages: RunPages) -> None:
    for path in [pages.index, *pages.case_pages.values()]:
        html = path.read_text(encoding="utf-8")
        assert runs.SCRIPT not in html, path
        assert "<img src=x" not in html
        prefix = "" if path == pages.index else "../"
        scripts = re.findall(r"<script\b[^>]*>", html)
        assert scripts == [f'<script defer src="{prefix}assets/view.js">']
    case = pages.case_pages["case-0"].read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned = 1;" in case
    assert "&lt;img src=x onerror=alert(1)&gt;" in case


def test_label_and_judgment_follow_the_verdict_outside_the_products(pages: RunPages) -> None:
    html = pages.case_pages["case-0"].read_text(encoding="utf-8")
    products = html.index('id="products"')
    verdict = html.index('id="verdict"')
    outcome = html.index('id="outcome"')
    assert products < verdict < outcome
    assert "label" not in html[products:outcome].lower().replace("<label", "")
    assert "misjudged: judged pass, label fail" in html[outcome:]
    right = pages.case_pages["case-1"].read_text(encoding="utf-8")
    assert "judge right" in right[right.index('id="outcome"'):]


def test_index_rows_carry_the_filter_values(pages: RunPages) -> None:
    flags = {row.record.case_id: row.flags for row in pages.rows}
    assert flags == {"case-0": ("misjudged", "unverified"), "case-1": ("unverified",),
                     "case-2": ("unverified",)}
    html = pages.index.read_text(encoding="utf-8")
    assert html.count("<tr id=\"row-") == 3
    assert 'data-flags="misjudged unverified"' in html
    for name in ("decision", "label", "domain", "task"):
        assert f'<select name="{name}">' in html


def test_case_pages_link_previous_next_and_next_misjudged(pages: RunPages) -> None:
    html = pages.case_pages["case-1"].read_text(encoding="utf-8")
    body = re.search(r"<body([^>]*)>", html)
    assert body is not None
    attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', body.group(1)))
    assert attrs == {"index": "../index.html", "prev": "case-0.html", "next": "case-2.html",
                     "misjudged": "case-0.html"}


def test_pages_without_the_dataset_say_so_and_dataset_option_restores_them(
    citing: RunResult, hostile: Dataset, tmp_path: Path
) -> None:
    run = tmp_path / "moved-run"
    shutil.copytree(citing.run_dir, run)
    moved = tmp_path / "moved-dataset"
    shutil.copytree(hostile.root, moved)
    summary = (run / "metrics.json").read_text()
    (run / "metrics.json").write_text(summary.replace(str(hostile.root), str(tmp_path / "gone")))
    alone = write_run_pages(run)
    assert "the judged dataset was not found" in alone.index.read_text()
    assert "case package was not found" in alone.case_pages["case-0"].read_text()
    restored = write_run_pages(run, moved)
    assert 'id="step-1"' in restored.case_pages["case-0"].read_text()
    with pytest.raises(ViewError, match="no cases/ folder"):
        write_run_pages(run, tmp_path)


def test_a_directory_without_verdicts_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ViewError, match=r"verdicts.jsonl not found"):
        write_run_pages(tmp_path)


def test_page_names_of_unsafe_ids_are_distinct() -> None:
    assert page_name("case-1") == "case-1.html"
    assert page_name("a/b") != page_name("a_b")
    assert "/" not in page_name("../etc")


def test_an_unfinished_run_is_shown_from_its_store(citing: RunResult, hostile: Dataset,
                                                   tmp_path: Path) -> None:
    run = tmp_path / "unfinished"
    shutil.copytree(citing.run_dir, run)
    (run / "verdicts.jsonl").unlink()
    (run / "metrics.json").unlink()
    with pytest.raises(ViewError, match="pass --dataset DIR"):
        write_run_pages(run)
    pages = write_run_pages(run, hostile.root)
    assert sorted(pages.case_pages) == ["case-0", "case-1", "case-2"]
    assert "an unfinished run: 3 verdicts stored so far" in pages.index.read_text()
    assert pages.rows[0].flags == ("misjudged", "unverified")


def test_each_verdict_shows_its_confidence_and_deciding_stage(tmp_path: Path) -> None:
    from judge_runner.core import Decision, Label, Usage, Verdict
    from judge_runner.jsonl import write_models
    from judge_runner.runs.records import CaseRecord, RunSummary

    verdict = Verdict(case_id="c1", judge="cascade", decision=Decision.PASS, confidence=0.91,
                      details={"stage": "direct:model-a"})
    record = CaseRecord(case_id="c1", task="t", domain=None, label=Label.PASS,
                        decision=Decision.PASS, correct=True, verdict=verdict)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_models(run_dir / "verdicts.jsonl", [record])
    summary = RunSummary(judge="cascade", config_hash="x", config={}, dataset="d", n_cases=1,
                         n_labeled=1, n_judged_now=1, n_resumed=0, usage=Usage(),
                         wall_seconds=0.0, metrics=None)
    (run_dir / "metrics.json").write_text(summary.model_dump_json())
    written = write_run_pages(run_dir)
    index = written.index.read_text(encoding="utf-8")
    assert '<td class="num confidence">0.910</td>' in index
    assert '<td class="stage">direct:model-a</td>' in index
    case = written.case_pages["c1"].read_text(encoding="utf-8")
    assert '<span id="confidence">confidence 0.910</span>' in case
    assert '<span id="deciding-stage">stage direct:model-a</span>' in case
