"""Two runs over the same dataset side by side: per case both decisions and rationales, the cases
whose decision changed highlighted (`fixed`, `broken`, `changed`, as `judge-runner compare`
counts them), each linked to its page in either run's viewer.

The page is written into the second run's `view/` folder (`compare.html` unless told otherwise);
links to the first run's pages are relative, so the two run directories stay usable together
when they are archived side by side.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from judge_runner.files import write_whole
from judge_runner.runs import CaseRecord, ChangedCase, Comparison, compare_records
from judge_runner.templates import environment
from judge_runner.view.pages import ASSETS, VIEW_DIR, RunPages, write_run_pages

COMPARE_FILE = "compare.html"


@dataclass(frozen=True)
class PairRow:
    case_id: str
    a: CaseRecord
    b: CaseRecord
    href_a: str
    href_b: str
    change: ChangedCase | None


def write_compare_page(run_a: Path, run_b: Path, out: Path | None = None,
                       dataset: Path | None = None) -> tuple[Path, Comparison]:
    """Write both runs' pages and the side-by-side page; returns its path and the comparison."""
    pages_a = write_run_pages(run_a, dataset)
    pages_b = write_run_pages(run_b, dataset)
    target = out if out is not None else run_b / VIEW_DIR / COMPARE_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    records_a = [r.record for r in pages_a.rows]
    records_b = [r.record for r in pages_b.rows]
    comparison = compare_records(records_a, records_b, str(run_a), str(run_b))
    changes = {c.case_id: c for c in comparison.changed}
    by_b = {r.case_id: r for r in records_b}
    rows = [PairRow(case_id=a.case_id, a=a, b=by_b[a.case_id],
                    href_a=_href(pages_a, a.case_id, target), href_b=_href(pages_b, a.case_id,
                                                                           target),
                    change=changes.get(a.case_id))
            for a in records_a if a.case_id in by_b]
    assets = os.path.relpath(pages_b.view_dir / ASSETS, target.parent)
    env = environment("judge_runner.view", html=True)
    write_whole(target, env.get_template("compare.html.j2").render(
        c=comparison, rows=rows, assets=assets, nav={},
        only_a=sorted(set(r.case_id for r in records_a) - set(by_b)),
        only_b=sorted(set(by_b) - {r.case_id for r in records_a}),
        index_a=os.path.relpath(pages_a.index, target.parent),
        index_b=os.path.relpath(pages_b.index, target.parent)))
    return target, comparison


def _href(pages: RunPages, case_id: str, page: Path) -> str:
    return os.path.relpath(pages.case_pages[case_id], page.parent)
