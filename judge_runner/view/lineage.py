"""The lineage page of an evolution run: versions with their gate figures, every candidate with
its gate figures, status and the diff from its parent skill, and the misjudged dev cases that
drove it, each linked to its page in the viewer of the judgments run it came from.

Read from the run's `state.json` (`EvolveState`), the skills' `lineage.json`, the stored diffs
of promotions (`candidates/<id>.diff`) and the judgment run directories under `judgments/`.
Written to `<evolve dir>/view/lineage.html`; the judgment runs get their own viewer pages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from judge_runner.core import CASES_DIR, Figures
from judge_runner.evolve import (
    CANDIDATES_DIR,
    JUDGMENTS_DIR,
    CandidateRecord,
    EvolveState,
    StateInvariantError,
    skill_diff,
)
from judge_runner.files import write_whole
from judge_runner.runs import VERDICTS_FILE
from judge_runner.skills import Lineage, LineageEntry, load_lineage
from judge_runner.templates import environment
from judge_runner.view.pages import (
    ASSETS,
    VIEW_DIR,
    RunPages,
    ViewError,
    write_assets,
    write_run_pages,
)

LINEAGE_PAGE = "lineage.html"


@dataclass(frozen=True)
class VersionRow:
    name: str
    gate: Figures | None
    entry: LineageEntry | None


@dataclass(frozen=True)
class Driver:
    """A misjudged dev case behind a candidate, with its page in the dev judgments run."""

    case_id: str
    href: str | None
    note: str  # "judged pass, label fail"


@dataclass
class CandidateView:
    record: CandidateRecord
    diff: str | None
    drivers: list[Driver]
    gate_index: str | None = None
    dev_index: str | None = None
    notes: list[str] = field(default_factory=list)


def is_evolution_dir(path: Path) -> bool:
    return (path / "state.json").is_file()


def write_lineage_page(evolve_dir: Path, dataset: Path | None = None) -> Path:
    """Write the lineage page (and the judgment runs' pages); returns the page's path."""
    try:
        state = EvolveState.load(evolve_dir)
    except (ValidationError, ValueError, StateInvariantError) as exc:
        raise ViewError(f"{evolve_dir}/state.json unreadable: {exc}") from exc
    if state is None:
        raise ViewError(f"{evolve_dir} holds no state.json: not an evolution run")
    view_dir = evolve_dir / VIEW_DIR
    write_assets(view_dir)
    page = view_dir / LINEAGE_PAGE
    data = dataset if dataset is not None else _existing(Path(state.config.dataset))
    runs = _judgment_pages(evolve_dir, data)
    lineage = _lineage(Path(state.config.skill).parent)
    start = Path(state.config.skill).name
    versions = [VersionRow(start, state.initial_gate, lineage.get(start))] + [
        VersionRow(Path(c.promoted_as).name, c.gate, lineage.get(Path(c.promoted_as).name))
        for c in state.promotions() if c.promoted_as]
    dirs = _skill_dirs(state)
    candidates = [_candidate_view(evolve_dir, state, c, dirs, runs, page) for c in state.candidates]
    env = environment("judge_runner.view", html=True)
    write_whole(page, env.get_template("lineage.html.j2").render(
        s=state, versions=versions, candidates=candidates, assets=ASSETS, nav={},
        title=evolve_dir.name or str(evolve_dir)))
    return page


def _existing(path: Path) -> Path | None:
    return path if (path / CASES_DIR).is_dir() else None


def _lineage(skills_root: Path) -> Lineage:
    try:
        return load_lineage(skills_root)
    except (OSError, ValueError):
        return Lineage()


def judgment_runs(evolve_dir: Path) -> list[Path]:
    """The judgment run directories of an evolution run (each gets viewer pages)."""
    return [v.parent for v in sorted((evolve_dir / JUDGMENTS_DIR).glob(f"*/*/{VERDICTS_FILE}"))]


def _judgment_pages(evolve_dir: Path, dataset: Path | None) -> dict[tuple[str, str], RunPages]:
    """Viewer pages of every judgment run, by (skill hash prefix, purpose)."""
    return {(run_dir.parent.name, run_dir.name): write_run_pages(run_dir, dataset)
            for run_dir in judgment_runs(evolve_dir)}


def _skill_dirs(state: EvolveState) -> dict[str, Path]:
    """Skill directory by content hash: the starting skill, then every candidate's."""
    dirs: dict[str, Path] = {}
    if state.rounds:
        dirs[state.rounds[0].incumbent_hash] = Path(state.config.skill)
    for c in state.candidates:
        if c.skill_hash and c.promoted_as:
            dirs[c.skill_hash] = Path(c.promoted_as)
        elif c.skill_hash and c.skill_dir:
            dirs.setdefault(c.skill_hash, Path(c.skill_dir))
    return dirs


def _candidate_view(evolve_dir: Path, state: EvolveState, c: CandidateRecord,
                    dirs: dict[str, Path], runs: dict[tuple[str, str], RunPages], page: Path
                    ) -> CandidateView:
    rnd = state.rounds[c.round] if c.round < len(state.rounds) else None
    dev = runs.get((rnd.incumbent_hash[:16], "dev")) if rnd else None
    gate = runs.get((c.skill_hash[:16], "gate")) if c.skill_hash else None
    records = {r.record.case_id: r.record for r in dev.rows} if dev else {}
    drivers = []
    for case_id in rnd.misjudged.get(c.strategy, []) if rnd else []:
        record = records.get(case_id)
        note = (f"judged {record.decision.value}, label {record.label.value}"
                if record is not None and record.label is not None else "")
        href = _rel(dev.case_pages.get(case_id), page) if dev else None
        drivers.append(Driver(case_id, href, note))
    view = CandidateView(record=c, diff=None, drivers=drivers,
                         gate_index=_rel(gate.index, page) if gate else None,
                         dev_index=_rel(dev.index, page) if dev else None)
    stored = evolve_dir / CANDIDATES_DIR / f"{c.id}.diff"
    parent = dirs.get(c.parent_hash)
    if stored.is_file():
        view.diff = stored.read_text(encoding="utf-8", errors="replace")
    elif c.skill_dir and Path(c.skill_dir).is_dir() and parent is not None and parent.is_dir():
        view.diff = skill_diff(parent, Path(c.skill_dir))
    else:
        view.notes.append("no diff: the candidate or its parent skill is not on disk")
    return view


def _rel(path: Path | None, page: Path) -> str | None:
    return os.path.relpath(path, page.parent) if path is not None else None
