"""The pages in headless Chromium: no console errors, citations land and highlight, hostile text
stays inert, filters and keyboard navigation work."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.core import Label
from judge_runner.runs.runner import RunResult
from judge_runner.view.compare import write_compare_page
from judge_runner.view.pages import RunPages, write_run_pages
from tests.casebuilder import build_case, msg, write
from tests.view import runs
from tests.view.browser import Browser

BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def citing_pages(citing: RunResult) -> RunPages:
    return write_run_pages(citing.run_dir)


@pytest.fixture(scope="module")
def agent_pages(agent: RunResult) -> RunPages:
    return write_run_pages(agent.run_dir)


@pytest.mark.parametrize("which", ["citing_pages", "agent_pages"])
def test_every_page_loads_cleanly_and_every_citation_lands(
    which: str, chromium: Browser, request: pytest.FixtureRequest
) -> None:
    pages: RunPages = request.getfixturevalue(which)
    total = 0
    for path in [pages.index, *pages.case_pages.values()]:
        report = chromium.check(path)
        assert report.ok, (path, report)
        total += report.citations
    assert total >= 5 * len(pages.case_pages)


def test_a_script_in_a_trajectory_is_shown_as_text(citing_pages: RunPages,
                                                   chromium: Browser) -> None:
    with chromium.page(citing_pages.case_pages["case-0"]) as page:
        assert page.evaluate("() => window.__pwned") is None
        assert page.title() != "pwned"
        page.locator("#step-1 summary").click()
        assert runs.SCRIPT in page.locator("#step-1 pre").last.inner_text()
        assert runs.SCRIPT in page.locator("#step-0").inner_text()


def test_clicking_a_citation_opens_and_highlights_its_target(citing_pages: RunPages,
                                                             chromium: Browser) -> None:
    with chromium.page(citing_pages.case_pages["case-0"]) as page:
        link = page.locator("#insp-I1 a.cite").first
        target = link.get_attribute("href")
        assert target and target.startswith("#q-")
        assert not page.locator("#step-1 details").first.evaluate("d => d.open")
        link.click()
        marked = page.locator(target)
        assert "hl" in (marked.get_attribute("class") or "")
        assert marked.inner_text() == runs.OUTPUT_QUOTE and marked.is_visible()
        assert page.locator(".hl").count() == 1
        page.locator("#insp-I1 a.cite", has_text="artifact").first.click()
        assert page.locator("#art-0-L2.hl.quoted").is_visible()


def test_unverified_quote_and_misjudged_case_are_marked(citing_pages: RunPages,
                                                       agent_pages: RunPages,
                                                       chromium: Browser) -> None:
    with chromium.page(citing_pages.case_pages["case-0"]) as page:
        assert page.locator("#outcome.misjudged #misjudged").is_visible()
        assert page.locator("#products .badge.misjudged").count() == 0
        assert page.locator("li.unverified .badge.unverified").count() == 1
    misjudged = [r.record.case_id for r in agent_pages.rows if r.misjudged]
    assert misjudged
    with chromium.page(agent_pages.case_pages[misjudged[0]]) as page:
        badge = page.locator("li.unverified .badge.unverified")
        assert badge.count() == 1 and badge.inner_text() == "quote NOT verified"
        assert page.locator("#outcome.misjudged").is_visible()


def test_index_filters_show_only_matching_cases(citing_pages: RunPages,
                                                chromium: Browser) -> None:
    with chromium.page(citing_pages.index) as page:
        assert page.locator("#shown").inner_text() == "3"
        page.locator("input[name=misjudged]").check()
        assert page.locator("#shown").inner_text() == "1"
        visible = page.locator("tbody#cases tr:not([hidden]) td:first-child")
        assert visible.all_inner_texts() == ["case-0"]
        page.locator("input[name=misjudged]").uncheck()
        page.locator("select[name=label]").select_option("pass")
        assert sorted(visible.all_inner_texts()) == ["case-1", "case-2"]


def test_keyboard_moves_between_cases(citing_pages: RunPages, chromium: Browser) -> None:
    with chromium.page(citing_pages.case_pages["case-1"]) as page:
        page.keyboard.press("n")
        page.wait_for_url("**/case-2.html")
        page.keyboard.press("p")
        page.wait_for_url("**/case-1.html")
        page.keyboard.press("m")
        page.wait_for_url("**/case-0.html")
        page.keyboard.press("i")
        page.wait_for_url("**/index.html")


def test_side_by_side_filter_shows_only_the_changed_cases(chromium: Browser,
                                                          tmp_path: Path) -> None:
    dataset = runs.hostile_dataset(tmp_path / "ds", n=4)
    runs.citing_run(dataset, tmp_path / "a", runs.CitingJudge("a"))
    runs.citing_run(dataset, tmp_path / "b", runs.CitingJudge("b", frozenset({"case-2"})))
    page_path, _ = write_compare_page(tmp_path / "a", tmp_path / "b")
    report = chromium.check(page_path)
    assert report.ok, report
    with chromium.page(page_path) as page:
        assert page.locator("#shown").inner_text() == "4"
        page.locator("input[name=changed]").check()
        rows = page.locator("tbody#cases tr:not([hidden])")
        assert rows.count() == 1 and rows.first.get_attribute("data-case") == "case-2"
        page.locator("tbody#cases tr:not([hidden]) a", has_text="A page").click()
        page.wait_for_url("**/a/view/cases/case-2.html")


def test_a_bidi_override_in_a_file_name_is_shown_not_obeyed(tmp_path: Path,
                                                             chromium: Browser) -> None:
    """`U+202E txt.exe` must not read as `exe.txt`: the control is printed as an escape, and the
    name sits in an isolated bidi run, so the letters keep their order on screen."""
    name = "/root/\u202etxt.exe"
    dataset_root = tmp_path / "dataset"
    build_case(dataset_root, [msg("wrote it"), write(name, "x")], case_id="bidi",
               task="task\u202eevil", final_message="done", artifacts={name: "x"},
               label=Label.FAIL)
    run = runs.citing_run(Dataset(dataset_root), tmp_path / "run")
    pages = write_run_pages(run.run_dir)
    with chromium.page(pages.case_pages["bidi"]) as page:
        assert not BIDI.search(page.locator("body").inner_text())
        heading = page.locator("section.artifact h3 bdi").first
        assert heading.inner_text() == "/root/\\u202etxt.exe"
        assert heading.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
        left = heading.evaluate("""e => {
            const text = e.firstChild, at = i => {
                const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                return r.getBoundingClientRect().left; };
            const s = text.data; return [at(s.indexOf("txt")), at(s.indexOf("exe"))]; }""")
        assert left[0] < left[1], left  # "txt" is drawn left of "exe"
    with chromium.page(pages.index) as page:
        assert not BIDI.search(page.locator("body").inner_text())
        assert "task\\u202eevil" in page.locator("#case-table").inner_text()
