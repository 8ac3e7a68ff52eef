"""`judge-runner sandbox exec|status` through the real CLI (prune: see test_prune.py)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.casebuilder import answer_dataset, mixed_answers


@pytest.fixture
def dataset(tmp_path: Path) -> tuple[Path, str]:
    """A valid dataset (world-readable, as the sandbox user needs) whose evidence folder holds
    a canary; returns (root, canary)."""
    root = answer_dataset(tmp_path / "ds", mixed_answers(2))
    canary = f"EVIDENCECANARY-{uuid.uuid4().hex}"
    evidence = root / "evidence" / "case-000"
    evidence.mkdir(parents=True)
    (evidence / "test-stdout.txt").write_text(f"FAILED {canary}\n")
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root, canary


@pytest.mark.parametrize("kind", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_exec_prints_output_and_exits_with_the_command_status(
    request: pytest.FixtureRequest, dataset: tuple[Path, str], kind: str
) -> None:
    if kind == "docker":
        request.getfixturevalue("docker_engine")
    root, _ = dataset
    result = CliRunner().invoke(app, ["sandbox", "exec", str(root / "cases" / "case-000"),
                                      "cat artifacts/answer.txt; exit 5", "--sandbox", kind])
    assert result.exit_code == 5, result.output
    assert result.stdout.strip() == "pass"


def _not_a_case_folder(root: Path, which: str) -> Path:
    """A folder that is not DATASET/cases/<id> with a valid case.json."""
    if which == "dataset root":
        return root
    if which == "cases/":
        return root / "cases"
    if which == "evidence/<id>":
        return root / "evidence" / "case-000"
    if which == "case copied elsewhere":
        return Path(shutil.copytree(root / "cases" / "case-000", root.parent / "case-000"))
    if which == "no case.json":
        folder = root / "cases" / "case-999"
        folder.mkdir()
        (folder / "notes.txt").write_text("x")
        return folder
    if which == "case.json of another case":
        folder = Path(shutil.copytree(root / "cases" / "case-000", root / "cases" / "case-x"))
        return folder
    if which == "case.json not valid":
        folder = Path(shutil.copytree(root / "cases" / "case-000", root / "cases" / "case-y"))
        (folder / "case.json").write_text(json.dumps({"id": "case-y"}))
        return folder
    raise AssertionError(which)


@pytest.mark.parametrize("which", ["dataset root", "cases/", "evidence/<id>",
                                   "case copied elsewhere", "no case.json",
                                   "case.json of another case", "case.json not valid"])
def test_exec_refuses_anything_but_a_case_folder(dataset: tuple[Path, str], which: str) -> None:
    root, canary = dataset
    folder = _not_a_case_folder(root, which)
    result = CliRunner().invoke(app, ["sandbox", "exec", str(folder),
                                      "cat -- $(find . -type f) 2>/dev/null; echo RAN",
                                      "--sandbox", "local"])
    assert result.exit_code == 2, result.output
    assert f"{folder} is not a case folder" in result.stderr
    assert "RAN" not in result.stdout and canary not in result.output


def test_exec_reports_a_timeout(dataset: tuple[Path, str]) -> None:
    case_dir = dataset[0] / "cases" / "case-000"
    result = CliRunner().invoke(app, ["sandbox", "exec", str(case_dir), "sleep 30",
                                      "--sandbox", "local", "--timeout", "0.5"])
    assert result.exit_code == 124
    assert "timed out after 0.5 s" in result.stderr


def test_exec_on_a_missing_case_is_a_clear_error(dataset: tuple[Path, str]) -> None:
    missing = dataset[0] / "cases" / "nope"
    result = CliRunner().invoke(app, ["sandbox", "exec", str(missing), "true",
                                      "--sandbox", "local"])
    assert result.exit_code == 2
    assert f"{missing} is not a case folder: no such directory" in result.stderr


def test_unknown_kind_is_rejected(dataset: tuple[Path, str]) -> None:
    case_dir = dataset[0] / "cases" / "case-000"
    result = CliRunner().invoke(app, ["sandbox", "exec", str(case_dir), "true",
                                      "--sandbox", "vm"])
    assert result.exit_code == 2 and "unknown sandbox kind 'vm'" in result.stderr


@pytest.mark.docker
def test_status_names_the_image(docker_engine: None) -> None:
    result = CliRunner().invoke(app, ["sandbox", "status"])
    assert result.exit_code == 0
    assert "auto sandbox: docker" in result.stdout
    assert "image: judge-runner-judge:latest (sha256:" in result.stdout
