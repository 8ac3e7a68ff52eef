"""`judge-runner sandbox exec|status` through the real CLI (prune: see test_prune.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from tests.sandbox.conftest import Planted


@pytest.mark.parametrize("kind", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_exec_prints_output_and_exits_with_the_command_status(
    request: pytest.FixtureRequest, planted: Planted, kind: str
) -> None:
    if kind == "docker":
        request.getfixturevalue("docker_engine")
    result = CliRunner().invoke(app, ["sandbox", "exec", str(planted.case_dir),
                                      "wc -l < artifacts/out.csv; exit 5", "--sandbox", kind])
    assert result.exit_code == 5
    assert result.stdout.strip() == "3"


def test_exec_reports_a_timeout(planted: Planted) -> None:
    result = CliRunner().invoke(app, ["sandbox", "exec", str(planted.case_dir), "sleep 30",
                                      "--sandbox", "local", "--timeout", "0.5"])
    assert result.exit_code == 124
    assert "timed out after 0.5 s" in result.stderr


def test_exec_on_a_missing_case_is_a_clear_error(planted: Planted) -> None:
    missing = planted.root / "cases" / "nope"
    result = CliRunner().invoke(app, ["sandbox", "exec", str(missing), "true",
                                      "--sandbox", "local"])
    assert result.exit_code == 2
    assert f"case package directory not found: {missing}" in result.stderr


def test_unknown_kind_is_rejected(planted: Planted) -> None:
    result = CliRunner().invoke(app, ["sandbox", "exec", str(planted.case_dir), "true",
                                      "--sandbox", "vm"])
    assert result.exit_code == 2 and "unknown sandbox kind 'vm'" in result.stderr


@pytest.mark.docker
def test_status_names_the_image(docker_engine: None) -> None:
    result = CliRunner().invoke(app, ["sandbox", "status"])
    assert result.exit_code == 0
    assert "auto sandbox: docker" in result.stdout
    assert "image: judge-runner-judge:latest (sha256:" in result.stdout
