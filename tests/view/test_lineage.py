"""The lineage page of a real (rules judge, rules optimizer) evolution run."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.evolve.state import EvolveState
from judge_runner.view.lineage import write_lineage_page
from judge_runner.view.pages import ViewError
from tests.casebuilder import dev_pool
from tests.view.serving import get, serving

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def evolution(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("evolution")
    dataset, dev, gate = dev_pool(work, n_tasks=4, per_task=8, gate_fail=6, gate_pass=3)
    (work / "dev.txt").write_text("\n".join(dev) + "\n")
    (work / "gate.txt").write_text("\n".join(gate) + "\n")
    skills = work / "judgeskills"
    skills.mkdir()
    (skills / "v1").symlink_to(REPO / "judgeskills" / "v1", target_is_directory=True)
    run = work / "evolve"
    result = CliRunner().invoke(app, [
        "evolve", "--skill", str(skills / "v1"), "--dev", str(work / "dev.txt"), "--gate",
        str(work / "gate.txt"), "--dataset", str(dataset), "--run-dir", str(run), "--judge",
        "rules", "--sandbox", "none", "--rounds", "2", "--sample-size", "12", "--seed", "1"])
    assert result.exit_code == 0, result.output
    return run


def test_lineage_shows_versions_candidates_diffs_and_driving_cases(evolution: Path) -> None:
    state = EvolveState.load(evolution)
    assert state is not None and state.candidates
    page = write_lineage_page(evolution)
    html = page.read_text(encoding="utf-8")
    for cand in state.candidates:
        assert f"{cand.id} · {cand.strategy.value} · {cand.status.value}" in html
    for promoted in state.promotions():
        assert f"<b>{Path(promoted.promoted_as or '').name}</b>" in html
    assert html.count("diff from the parent skill") == len(state.candidates)
    assert '<span class="add">+' in html
    drivers = {c for r in state.rounds for ids in r.misjudged.values() for c in ids}
    assert drivers
    links = re.findall(r'<li><a href="([^"]+)">([^<]+)</a>', html)
    assert {name for _, name in links} == drivers
    for href, _ in links:
        assert (page.parent / href).is_file(), href


def test_serve_answers_every_link_of_the_lineage_page(evolution: Path) -> None:
    with serving(str(evolution)) as url:
        status, body = get(url)
        assert status == 200 and url.endswith("/lineage.html")
        hrefs = [h for h in re.findall(r'href="([^"#]+)"', body.decode("utf-8"))
                 if not h.startswith("http")]
        assert len(hrefs) >= 10 and any("judgments" in h for h in hrefs)
        base = url.rsplit("/", 1)[0]
        for href in hrefs:
            assert get(urllib.parse.urljoin(f"{base}/", href))[0] == 200, href
        assert get(urllib.parse.urljoin(f"{base}/", "../state.json"))[0] == 404


def test_a_directory_without_state_is_not_an_evolution(tmp_path: Path) -> None:
    with pytest.raises(ViewError, match="not an evolution run"):
        write_lineage_page(tmp_path)
