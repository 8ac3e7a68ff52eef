"""Writing a run's audit pages into `<run dir>/view/`: an index and one static page per case.

    view/index.html          every case with filters (decision, label, domain, task, flags)
    view/cases/<case>.html   instruction, trajectory, artifacts, the judge's products, outcome
    view/assets/view.{css,js}

Each case page is complete HTML rendered here, so opening one reads only that page: a run of
hundreds of cases with long trajectories costs one case's data per page, and the pages open
from disk (no server, nothing fetched) as well as through `judge-runner view --serve`.

The run is read through its public records (`verdicts.jsonl`, `metrics.json`, the per-case
products under `cases/<id>/`); the case packages come from the dataset recorded in
`metrics.json`, or the one given. A run that has not finished (no `verdicts.jsonl` yet) is shown
from the verdicts its store holds so far, given the dataset.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge_runner.cases import CasePackage, Dataset
from judge_runner.core import CASE_FILE, CASES_DIR, Decision
from judge_runner.files import write_whole
from judge_runner.runs import (
    CASES_OUT,
    STORE_FILE,
    VERDICTS_FILE,
    CaseRecord,
    RunStore,
    RunSummary,
    build_records,
    load_records,
    load_summary,
    summary_rows,
    unverified_quotes,
)
from judge_runner.templates import environment
from judge_runner.view.case import build_case_view, safe_token
from judge_runner.view.checklist import checklist_view

VIEW_DIR = "view"
CASE_PAGES = "cases"
ASSETS = "assets"
INDEX = "index.html"
FLAGS = (("misjudged", "misjudged"), ("error", "error"), ("abstain", "abstain"),
         ("unsupported", "unsupported verdict"), ("unverified", "unverified quotes"))


class ViewError(RuntimeError):
    """A directory that cannot be shown (not a finished run, dataset not found)."""


@dataclass(frozen=True)
class Link:
    href: str
    label: str


@dataclass(frozen=True)
class IndexRow:
    record: CaseRecord
    href: str
    unverified: int
    flags: tuple[str, ...]

    @property
    def misjudged(self) -> bool:
        return self.record.correct is False


@dataclass(frozen=True)
class RunPages:
    run_dir: Path
    view_dir: Path
    index: Path
    case_pages: dict[str, Path] = field(default_factory=dict)
    rows: tuple[IndexRow, ...] = ()


def page_name(case_id: str) -> str:
    """The file name of a case's page; ids with unsafe characters get a hashed suffix."""
    return f"{safe_token(case_id)}.html"


def resolve_dataset(run_dir: Path, summary: RunSummary | None,
                    given: Path | None) -> Dataset | None:
    """The dataset the run judged: `given`, else the path recorded in metrics.json as it stands,
    relative to the working directory, or relative to the run directory."""
    if given is not None:
        if not (given / CASES_DIR).is_dir():
            raise ViewError(f"--dataset {given}: no cases/ folder there")
        return Dataset(given)
    if summary is None:
        return None
    recorded = Path(summary.dataset)
    for candidate in (recorded, run_dir / recorded):
        if (candidate / CASES_DIR).is_dir():
            return Dataset(candidate)
    return None


def write_assets(view_dir: Path) -> None:
    env = environment("judge_runner.view", html=True)
    assets = view_dir / ASSETS
    assets.mkdir(parents=True, exist_ok=True)
    for name in ("view.css", "view.js"):
        write_whole(assets / name, env.get_template(f"{name}.j2").render())


def write_run_pages(run_dir: Path, dataset: Path | None = None,
                    links: tuple[Link, ...] = ()) -> RunPages:
    """Write (or rewrite) the pages of the finished run in `run_dir`; returns where they are.

    Raises ViewError when `run_dir` holds no finished run. A case whose package or products are
    missing or unreadable still gets a page, saying what is missing.
    """
    summary: RunSummary | None
    try:
        summary = load_summary(run_dir)
    except (FileNotFoundError, ValueError):
        summary = None
    data = resolve_dataset(run_dir, summary, dataset)
    records, problems = _records(run_dir, data)
    if data is None:
        problems.append("the judged dataset was not found"
                        + (f" at {summary.dataset}" if summary else "")
                        + "; case packages are not shown (pass --dataset DIR)")
    view_dir = run_dir / VIEW_DIR
    (view_dir / CASE_PAGES).mkdir(parents=True, exist_ok=True)
    write_assets(view_dir)
    env = environment("judge_runner.view", html=True)
    case_template = env.get_template("case.html.j2")
    names = [page_name(r.case_id) for r in records]
    misjudged = [i for i, r in enumerate(records) if r.correct is False]
    rows: list[IndexRow] = []
    pages: dict[str, Path] = {}
    for i, record in enumerate(records):
        package = _package(data, record.case_id)
        view = build_case_view(record, package, run_dir / CASES_OUT / record.case_id)
        nav = {"index": f"../{INDEX}",
               "prev": names[i - 1] if i > 0 else None,
               "next": names[i + 1] if i + 1 < len(records) else None,
               "misjudged": _next_misjudged(misjudged, i, names)}
        details = {"usage": record.verdict.usage.model_dump(), "duration_s":
                   record.verdict.duration_s, "details": record.verdict.details}
        checklist = checklist_view(record, view.inspections, view.problems)
        html = case_template.render(c=view, k=checklist, nav=nav, assets=f"../{ASSETS}",
                                    details_json=json.dumps(details, indent=1, sort_keys=True,
                                                            ensure_ascii=False, default=str))
        path = view_dir / CASE_PAGES / names[i]
        write_whole(path, html)
        pages[record.case_id] = path
        unverified = max(view.n_unverified, unverified_quotes(record.verdict))
        rows.append(IndexRow(record=record, href=f"{CASE_PAGES}/{names[i]}",
                             unverified=unverified, flags=_flags(record, unverified)))
    index = view_dir / INDEX
    write_whole(index, env.get_template("index.html.j2").render(
        title=run_dir.name or str(run_dir), judge=summary.judge if summary else
        (records[0].verdict.judge if records else "?"), summary=summary,
        metric_rows=summary_rows(summary.metrics) if summary and summary.metrics else [],
        rows=rows, choices=_choices(records), flags=FLAGS, problems=problems,
        links=links, assets=ASSETS, nav={}))
    return RunPages(run_dir=run_dir, view_dir=view_dir, index=index, case_pages=pages,
                    rows=tuple(rows))


def _records(run_dir: Path, data: Dataset | None) -> tuple[list[CaseRecord], list[str]]:
    """The run's case records: verdicts.jsonl of a finished run, else (a run still going or
    stopped early) the verdicts stored so far, completed with the dataset's labels."""
    if (run_dir / VERDICTS_FILE).is_file() or not (run_dir / STORE_FILE).is_file():
        try:
            return load_records(run_dir), []
        except (FileNotFoundError, ValueError) as exc:
            raise ViewError(str(exc)) from exc
    if data is None:
        raise ViewError(f"{run_dir} holds no {VERDICTS_FILE} (the run has not finished): pass "
                        "--dataset DIR to show the verdicts stored so far")
    with RunStore.open(run_dir) as store:
        verdicts = store.verdicts()
    records = build_records(data, sorted(verdicts), verdicts)
    return records, [f"an unfinished run: {len(records)} verdicts stored so far, read from "
                     f"{STORE_FILE}"]


def _package(data: Dataset | None, case_id: str) -> CasePackage | None:
    if data is None:
        return None
    package = data.case(case_id)
    return package if (package.root / CASE_FILE).is_file() else None


def _next_misjudged(misjudged: list[int], current: int, names: list[str]) -> str | None:
    """The next misjudged case after `current`, wrapping round to the first."""
    later = [i for i in misjudged if i > current] or [i for i in misjudged if i != current]
    return names[later[0]] if later else None


def _flags(record: CaseRecord, unverified: int) -> tuple[str, ...]:
    flags = []
    if record.correct is False:
        flags.append("misjudged")
    if record.decision in (Decision.ERROR, Decision.ABSTAIN):
        flags.append(record.decision.value)
    if record.verdict.unsupported:
        flags.append("unsupported")
    if unverified:
        flags.append("unverified")
    return tuple(flags)


def _choices(records: list[CaseRecord]) -> list[tuple[str, list[str]]]:
    def values(get: Callable[[CaseRecord], str]) -> list[str]:
        return sorted({str(get(r)) for r in records})

    return [
        ("decision", values(lambda r: r.decision.value)),
        ("label", values(lambda r: r.label.value if r.label else "unlabeled")),
        ("domain", values(lambda r: r.domain or "unknown")),
        ("task", values(lambda r: r.task or "unknown")),
    ]
