"""The checklist section of the case pages of a checklist judge run (the bundled examples, the
scripted synthesizer and item judge): rendered in headless Chromium with every citation link
landing on an element, items in checklist order, and the gated reading's stop marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Dataset, Label
from judge_runner.checklist import read_details
from judge_runner.runs import CaseRecord, load_records
from judge_runner.view.case import build_case_view
from judge_runner.view.checklist import checklist_view
from judge_runner.view.pages import RunPages, write_run_pages
from tests.checklist.test_examples import runs as example_runs
from tests.view import runs
from tests.view.browser import Browser


@pytest.fixture(scope="module")
def checklist_run(examples_dataset: Dataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checklist")
    return runs.checklist_run(examples_dataset.root, root / "checklists", root / "run")


@pytest.fixture(scope="module")
def pages(checklist_run: Path) -> RunPages:
    return write_run_pages(checklist_run)


def test_every_checklist_page_renders_and_every_citation_lands(
        pages: RunPages, chromium: Browser, checklist_run: Path) -> None:
    records = {r.case_id: r for r in load_records(checklist_run)}
    assert len(pages.case_pages) == len(records) == 12
    in_section = 0
    for case_id, path in pages.case_pages.items():
        report = chromium.check(path)
        assert report.ok, (path, report)
        with chromium.page(path) as page:
            shown = page.locator("#checklist-items tr.cl-item").evaluate_all(
                "rows => rows.map(r => r.id)")
            details = read_details(records[case_id].verdict.details)
            assert details is not None
            expected = [f"cl-{i.id}" for i in details.items]
            if records[case_id].label is Label.FAIL:
                expected.append("cl-ENDPOINT")
            assert shown == expected, case_id
            links = page.locator("#checklist a.cite").evaluate_all(
                "links => links.map(a => a.getAttribute('href'))")
            assert links and all(page.locator(f"[id='{h[1:]}']").count() == 1 for h in links)
            # the outcome step uses the label: the section stands apart from the judge's products
            assert page.locator("#products #checklist").count() == 0
            in_section += len(links)
    assert in_section >= 12 * 3


def test_the_gated_stop_and_the_report_citation_are_linked(
        pages: RunPages, chromium: Browser, examples_dataset: Dataset) -> None:
    run = example_runs(examples_dataset.root)
    # interval opus: C06 refuted by a quote of the final report ("All tests pass"); the gated
    # reading stops there
    with chromium.page(pages.case_pages[run[("interval-merge-bugfix", "opus")]]) as page:
        assert "stopped here" in page.locator("#cl-C06").inner_text()
        stop = page.locator("#checklist-gated a.cite")
        assert stop.get_attribute("href") == "#cl-C06"
        cite = page.locator("#cl-C06 a.cite", has_text="final report")
        target = cite.get_attribute("href")
        assert target and target.startswith("#q-")
        cite.click()
        marked = page.locator(target)
        assert marked.inner_text() == "All tests pass" and marked.is_visible()
        assert page.locator("#final-message").locator(target).count() == 1
    # ssh opus: nothing decided from the log; only the endpoint of the failed run stops it
    with chromium.page(pages.case_pages[run[("ssh-bruteforce-triage", "opus")]]) as page:
        assert "stopped here" in page.locator("#cl-ENDPOINT").inner_text()


def test_without_a_label_the_section_shows_the_judgments_only(
        checklist_run: Path, examples_dataset: Dataset) -> None:
    record = load_records(checklist_run)[0]
    unlabeled = CaseRecord.model_validate({**record.model_dump(), "label": None,
                                           "correct": None})
    view = build_case_view(unlabeled, examples_dataset.case(record.case_id),
                           checklist_run / "cases" / record.case_id)
    problems: list[str] = []
    section = checklist_view(unlabeled, view.inspections, problems)
    assert section is not None and problems == []
    assert not section.labeled and not section.endpoint_no
    assert all(i.final is None for i in section.items)
    assert [i.inspection.inspection.plan_item for i in section.items if i.inspection] == \
        [i.id for i in section.items]
    other = CaseRecord.model_validate({**record.model_dump(), "verdict": {
        **record.verdict.model_dump(), "details": {}}})
    assert checklist_view(other, view.inspections, problems) is None and problems == []
