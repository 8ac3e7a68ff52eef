"""The shared CLI error exit."""

from __future__ import annotations

import pytest
import typer

from judge_runner.cli.support import fail


def test_fail_prints_to_stderr_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    app = typer.Typer()

    @app.command()
    def broken() -> None:
        raise fail("ds/cases: does not exist")

    with pytest.raises(SystemExit) as info:
        app([], standalone_mode=True)
    assert info.value.code == 2
    out = capsys.readouterr()
    assert out.err == "error: ds/cases: does not exist\n" and out.out == ""
