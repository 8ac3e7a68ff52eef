"""Two runs side by side: exactly the cases whose decision changed are highlighted."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.view.compare import write_compare_page
from tests.view import runs


class _Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and found.get("data-case"):
            self.rows[str(found["data-case"])] = found.get("class") or ""


def test_side_by_side_highlights_exactly_the_changed_cases(tmp_path: Path) -> None:
    dataset: Dataset = runs.hostile_dataset(tmp_path / "ds", n=5)
    run_a, run_b = tmp_path / "a", tmp_path / "b"
    runs.citing_run(dataset, run_a, runs.CitingJudge("a"))
    runs.citing_run(dataset, run_b, runs.CitingJudge("b", frozenset({"case-0", "case-3"})))
    page, comparison = write_compare_page(run_a, run_b)
    assert page == run_b / "view" / "compare.html"
    assert sorted(c.case_id for c in comparison.changed) == ["case-0", "case-3"]
    parser = _Rows()
    parser.feed(page.read_text(encoding="utf-8"))
    assert sorted(parser.rows) == [f"case-{i}" for i in range(5)]
    assert sorted(c for c, cls in parser.rows.items() if "changed" in cls) == ["case-0", "case-3"]
    html = page.read_text(encoding="utf-8")
    # case-0 is labelled fail: B fixed it; case-3 is labelled pass: B broke it
    assert ">fixed<" in html and ">broken<" in html
    assert "../../a/view/cases/case-0.html" in html and "cases/case-0.html" in html
    assert runs.SCRIPT not in html  # rationales are escaped too
