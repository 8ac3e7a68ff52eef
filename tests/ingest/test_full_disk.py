"""A full disk during `import` (a real tmpfs filled up): the import stops with one line, the
partial dataset stays marked incomplete and validate/eval/bench refuse it; once there is room,
the same import completes. The same for every `--format` (harbor, plain, inspect)."""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.core import INCOMPLETE_FILE
from tests.conftest import EXAMPLES, fill_disk, require
from tests.ingest.test_plain import STEPS, plain_run


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


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.ingest.inspect_task import write_log

    require(importlib.util.find_spec("inspect_ai") is not None,
            "inspect_ai (the 'inspect' extra, in the dev set) is not installed")
    return write_log(tmp_path_factory.mktemp("inspect-logs")).parent


def _refused_while_incomplete(pool: Path) -> None:
    """No case was written before the disk filled: validate, eval and bench say the import did
    not finish (not that the folder is no dataset)."""
    assert (pool / INCOMPLETE_FILE).is_file()
    assert not (pool / "import_report.json").exists()
    assert list(pool.rglob("*.partial")) == []
    for refused in (["validate", str(pool)], ["eval", str(pool), "--judge", "rules"],
                    ["bench", "build", str(pool)]):
        code, err = _invoke(*refused)
        assert (code, err) == (2, f"error: {pool} is incomplete: the import that wrote it did "
                                  f"not finish ({INCOMPLETE_FILE} is present); run the same "
                                  "import again\n"), refused


@pytest.mark.parametrize("source_format", ["plain", "inspect"])
def test_plain_and_inspect_imports_stopped_by_a_full_disk_stay_marked_incomplete(
    source_format: str, small_disk: Callable[[str], Path], tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    if source_format == "plain":
        runs = tmp_path / "runs"
        for name in ("r1", "r2", "r3"):
            plain_run(runs, name, STEPS, {"reward": 1.0})
    else:
        runs = request.getfixturevalue("inspect_logs")
    disk = small_disk("1m")
    pool = disk / "pool"
    fill_disk(disk, leave=8 * 1024)  # room for the marker and one more file, not a case
    args = ["import", "--format", source_format, str(runs), "--out", str(pool)]
    code, err = _invoke(*args)
    assert code == 2
    (line,) = err.splitlines()
    assert line.startswith(f"error: import into {pool} stopped: No space left on device")
    assert "marked incomplete" in line and "run the same import again" in line
    _refused_while_incomplete(pool)

    (disk / "filler").unlink()  # room again
    code, err = _invoke(*args)
    assert code == 0, err
    assert not (pool / INCOMPLETE_FILE).exists()
    result = CliRunner().invoke(app, ["validate", str(pool)])
    assert result.exit_code == 0 and "ok: 3 case(s) valid" in result.stdout
