"""The plan's report: renders in headless Chromium, its LaTeX compiles (or, without a TeX
engine, is well formed), and its Markdown and CSV tables say what report.json says."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI, REPO, require
from tests.experiments.scripted import RULES_ROWS, cli, header

pytestmark = pytest.mark.slow
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--no-default-browser-check"]
TAIL = """
[[comparisons]]
a = "rules-v1"
b = "rules-v2"

[selection]
n_max = 3
repeats = 4
seed = 0
"""


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("experiment-report")
    (tmp / "plan.toml").write_text(header("rules") + RULES_ROWS + TAIL)
    done = cli(["experiment", "run", "plan.toml", "--no-progress"], tmp,
               {"COLUMNS": "200", "PATH": "/usr/bin:/bin"} | _python_env())
    assert done.returncode == 0, done.stderr
    folder = tmp / "runs" / "experiment-rules"
    assert (folder / "report.html").is_file()
    return folder


def _python_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "COLUMNS"}


def _json(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "report.json").read_text())
    return data


def test_report_command_rewrites_the_same_report(report_dir: Path) -> None:
    before = (report_dir / "report.json").read_text()
    (report_dir / "report.json").unlink()
    done = cli(["experiment", "report", "plan.toml"], report_dir.parent.parent, _python_env())
    assert done.returncode == 0, done.stderr
    assert (report_dir / "report.json").read_text() == before


def test_csv_tables_match_the_json(report_dir: Path) -> None:
    report = _json(report_dir)
    with (report_dir / "table2.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["judge"] for r in rows] == [m["title"] for m in report["main"]]
    for row, main in zip(rows, report["main"], strict=True):
        for column in ("P", "R", "F1", "Acc", "BalAcc"):
            figure = main["figures"][column]
            assert float(row[column]) == pytest.approx(figure["value"], abs=5e-4)
            if figure["low"] is not None:
                assert row[f"{column} 95% CI"] == f"[{figure['low']:.3f}, {figure['high']:.3f}]"
        assert int(row["n"]) == main["judged"] and int(row["errors"]) == main["errors"]
        assert float(row["cost (USD)"]) == pytest.approx(main["cost_usd"], abs=5e-5)
    with (report_dir / "table3.csv").open() as f:
        domains = list(csv.reader(f))
    assert domains[0][1:] == [m["title"] for m in report["main"]]
    for line in domains[1:]:
        for cell, main in zip(line[1:], report["main"], strict=True):
            value = report["per_domain"][main["row"]][line[0]]
            assert cell == ("-" if value is None else f"{value:.3f}")
    with (report_dir / "table4.csv").open() as f:
        versions = list(csv.DictReader(f))
    assert [v["version"] for v in versions] == ["v1", "v2"]
    for got, v in zip(versions, report["versions"], strict=True):
        assert float(got["G"]) == pytest.approx(v["gate_score"]["value"], abs=5e-4)
    with (report_dir / "table5.csv").open() as f:
        success = list(csv.reader(f))
    assert [s[0] for s in success[1:]] == ["Rules v1", "Rules v2", "oracle", "random"]
    assert success[0] == ["selector", "Success@1", "Success@2", "Success@3"]
    with (report_dir / "mcnemar.csv").open() as f:
        (test,) = list(csv.DictReader(f))
    assert float(test["p exact"]) == pytest.approx(report["pairs"][0]["p_exact"], abs=5e-5)


def test_markdown_tables_match_the_json(report_dir: Path) -> None:
    report = _json(report_dir)
    text = (report_dir / "report.md").read_text()
    for main in report["main"]:
        line = next(x for x in text.splitlines() if x.startswith(f"| {main['title']} | - |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[3] == f"{main['figures']['P']['value']:.3f}"
        assert cells[11] == f"{main['figures']['BalAcc']['value']:.3f}"
        assert cells[13] == f"{main['coverage']:.3f}"
    for header_ in ("## Table 2.", "## Table 3.", "## Table 4.", "## Table 5.",
                    "## Paired McNemar tests"):
        assert header_ in text


def test_chromium_renders_the_report_with_links_to_each_row(report_dir: Path) -> None:
    png = report_dir / "report.png"
    done = subprocess.run([str(REPO / "scripts" / "screenshot-report"),
                           str(report_dir / "report.html"), str(png)],
                          capture_output=True, text=True, timeout=300)
    require(done.returncode == 0 or shutil.which("chromium") is not None,
            f"chromium unavailable: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              "--dump-dom", (report_dir / "report.html").resolve().as_uri()],
                             capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-500:]
    for table in ("table2", "table3", "table4", "table5", "mcnemar"):
        assert f'id="{table}-table"' in dom.stdout, table
    links = re.findall(r'<a href="([^"]+)">', dom.stdout)
    assert len(links) == 2
    for link in links:
        assert (report_dir / link).resolve().is_file(), link


def test_latex_is_booktabs_and_compiles(report_dir: Path, tmp_path: Path) -> None:
    tex = (report_dir / "report.tex").read_text()
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 5
    assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 5
    for spec, body in re.findall(r"\\begin\{tabular\}\{([lr]+)\}(.*?)\\end\{tabular\}", tex,
                                 re.S):
        rows = [r for r in body.splitlines() if r.endswith(r"\\")]
        assert rows and all(r.count(" & ") == len(spec) - 1 for r in rows)
    assert "\\_" in tex or "_" not in tex.replace("\\_", "")  # underscores escaped
    engine = shutil.which("pdflatex")
    if engine is None and IN_CI:
        pytest.fail("required in CI: pdflatex (.ci/run installs texlive-latex-recommended)")
    if engine is None:
        pytest.skip("no TeX engine: the structure was checked, compiling was not")
    shutil.copy(report_dir / "report.tex", tmp_path / "report.tex")
    done = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "report.pdf").read_bytes()[:5] == b"%PDF-"
