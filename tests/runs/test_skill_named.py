"""Every description of a run names the JudgeSkill it used (path, name, version, hash):
metrics.json, the printed table, report.html, the viewer's index and `compare`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.skills import load_skill
from tests.conftest import EXAMPLES, REPO


def test_runs_name_their_skill(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    import_trials([EXAMPLES / "trials"], dataset, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    runs = {}
    for version in ("v1", "v2"):
        skill = REPO / "judgeskills" / version
        run = tmp_path / f"run-{version}"
        result = CliRunner().invoke(app, ["eval", str(dataset), "--judge", "rules", "--skill",
                                          str(skill), "--run-dir", str(run), "--no-progress"])
        assert result.exit_code == 0, result.output
        loaded = load_skill(skill)
        named = json.loads((run / "metrics.json").read_text())["skill"]
        assert named == {"path": str(skill), "name": loaded.name, "version": loaded.version,
                         "hash": loaded.content_hash}
        label = f"{skill} ({loaded.name} {loaded.version}, {loaded.content_hash[:12]})"
        title = result.stdout.split("┏")[0]  # the table's title, however the terminal wraps it
        assert f"({loaded.name} {loaded.version}, {loaded.content_hash[:12]})" in \
            " ".join(title.split()), title
        report = (run / "report.html").read_text()
        assert f"JudgeSkill <code>{skill}</code>" in report and loaded.content_hash[:12] in report
        runs[version] = (run, label)
    viewed = CliRunner().invoke(app, ["view", str(runs["v1"][0])])
    assert viewed.exit_code == 0, viewed.output
    index = (runs["v1"][0] / "view" / "index.html").read_text()
    assert f"JudgeSkill <code>{REPO / 'judgeskills' / 'v1'}</code>" in index
    compared = CliRunner().invoke(app, ["compare", str(runs["v1"][0]), str(runs["v2"][0])])
    assert compared.exit_code == 0, compared.output
    flat = " ".join(compared.stdout.split())
    assert f"A: {runs['v1'][0]} — rules · {runs['v1'][1]}" in flat
    assert f"B: {runs['v2'][0]} — rules · {runs['v2'][1]}" in flat
