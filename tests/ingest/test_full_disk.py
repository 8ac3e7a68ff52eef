"""A full disk during `import` (a real tmpfs filled up): the import stops with one line, the
partial dataset stays marked incomplete and validate/eval/bench refuse it; once there is room,
the same import completes."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.core import INCOMPLETE_FILE
from tests.conftest import EXAMPLES


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stderr


def test_a_full_disk_leaves_a_dataset_that_is_visibly_incomplete(
    small_disk: Callable[[str], Path],
) -> None:
    disk = small_disk("256k")  # the 12 example trials need about 1 MiB
    pool = disk / "pool"
    args = ["import", str(EXAMPLES / "trials"), "--tasks", str(EXAMPLES / "tasks"), "--out",
            str(pool)]
    code, err = _invoke(*args)
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith(f"error: import into {pool} stopped: No space left on device")
    assert "marked incomplete" in line and "run the same import again" in line
    assert (pool / INCOMPLETE_FILE).is_file()
    assert not (pool / "import_report.json").exists()  # never a cut-off report
    assert list(pool.rglob("*.partial")) == []

    result = CliRunner().invoke(app, ["validate", str(pool)])
    assert result.exit_code == 1 and f"{INCOMPLETE_FILE}: import:" in result.stdout
    for refused in (["eval", str(pool), "--judge", "rules"], ["bench", "build", str(pool)]):
        code, err = _invoke(*refused)
        assert (code, err) == (2, f"error: {pool} is incomplete: the import that wrote it did "
                                  f"not finish ({INCOMPLETE_FILE} is present); run the same "
                                  "import again\n")

    subprocess.run(["mount", "-o", "remount,size=8m", str(disk)], check=True)  # room again
    code, err = _invoke(*args)
    assert code == 0, err
    assert not (pool / INCOMPLETE_FILE).exists()
    result = CliRunner().invoke(app, ["validate", str(pool)])
    assert result.exit_code == 0 and "ok: 12 case(s) valid" in result.stdout
