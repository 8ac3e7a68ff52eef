from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.skills import check_lineage, load_lineage
from judge_runner.skills.model import hash_directory
from tests.conftest import REPO

ROOT = REPO / "judgeskills"


def _entry(version: str, parent: str | None, content_hash: str | None = None) -> dict[str, object]:
    return {"version": version, "parent": parent, "origin": "edited", "how": "test",
            "created": "2026-01-01", "content_hash": content_hash}


def test_repository_lineage_is_consistent() -> None:
    lineage = load_lineage(ROOT)
    assert lineage.get("v1") is not None
    assert check_lineage(ROOT, lineage) == []


def test_problems_are_reported(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "v1", tmp_path / "v1")
    shutil.copytree(ROOT / "v1", tmp_path / "v3")
    recorded = hash_directory(tmp_path / "v1")
    (tmp_path / "v1" / "SKILL.md").write_text((tmp_path / "v1" / "SKILL.md").read_text() + "x")
    (tmp_path / "lineage.json").write_text(json.dumps({"versions": [
        _entry("v1", None, recorded), _entry("v2", "v0")]}))
    problems = check_lineage(tmp_path, load_lineage(tmp_path))
    assert any("v1: files changed" in p for p in problems)
    assert any("v2: parent v0 has no entry" in p for p in problems)
    assert any("v2: no directory" in p for p in problems)
    assert any("v3: directory has no lineage entry" in p for p in problems)


def test_ancestry_follows_parents(tmp_path: Path) -> None:
    (tmp_path / "lineage.json").write_text(json.dumps({"versions": [
        _entry("v1", None), _entry("v2", "v1"), _entry("v3", "v2")]}))
    assert load_lineage(tmp_path).ancestry("v3") == ["v3", "v2", "v1"]


def test_cli_list_show_diff(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["skills", "list", "--root", str(ROOT)])
    assert listed.exit_code == 0, listed.output
    assert "v1" in listed.output and "handwritten" in listed.output
    shown = runner.invoke(app, ["skills", "show", "v1", "--root", str(ROOT)])
    assert shown.exit_code == 0, shown.output
    assert "references/reasoning-and-execution.md" in shown.output
    same = runner.invoke(app, ["skills", "diff", "v1", str(ROOT / "v1"), "--root", str(ROOT)])
    assert same.exit_code == 0 and same.output == ""
    changed = tmp_path / "v2"
    shutil.copytree(ROOT / "v1", changed)
    (changed / "references" / "new.md").write_text("a new prior\n")
    diff = runner.invoke(app, ["skills", "diff", "v1", str(changed), "--root", str(ROOT)])
    assert diff.exit_code == 1
    assert "+a new prior" in diff.output
