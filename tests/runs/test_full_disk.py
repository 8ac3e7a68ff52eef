"""A full disk during `eval` and `view` (a real tmpfs filled up): one line saying what stopped
and how to go on, never a traceback; no page or report is left half-written; once there is room
again the same command finishes the work."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.ingest import ImportOptions, import_trials
from tests.conftest import EXAMPLES, fill_disk


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("examples") / "dataset"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    return out


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stderr


def _whole_pages(folder: Path) -> None:
    assert list(folder.rglob("*.partial")) == []
    for page in folder.rglob("*.html"):
        assert page.read_text(encoding="utf-8").rstrip().endswith("</html>"), page


def test_eval_on_a_full_disk_stops_in_one_line_and_resumes(
    examples: Path, small_disk: Callable[[str], Path]
) -> None:
    disk = small_disk("1m")
    run = disk / "run"
    fill_disk(disk, leave=48 * 1024)
    eval_args = ["eval", str(examples), "--judge", "rules", "--run-dir", str(run),
                 "--no-progress"]
    code, err = _invoke(*eval_args)
    assert code == 2
    (line,) = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert line.startswith(f"error: judging into {run} stopped: ")
    assert "full" in line or "No space left" in line
    assert line.endswith("free space and run the same command again to judge the rest")
    _whole_pages(run)

    (disk / "filler").unlink()
    code, err = _invoke(*eval_args)
    assert code == 0, err
    assert (run / "report.html").is_file()
    _whole_pages(run)


def test_view_on_a_full_disk_leaves_no_half_page(
    examples: Path, small_disk: Callable[[str], Path]
) -> None:
    disk = small_disk("2m")
    run = disk / "run"
    code, err = _invoke("eval", str(examples), "--judge", "rules", "--run-dir", str(run),
                        "--no-progress")
    assert code == 0, err
    fill_disk(disk, leave=24 * 1024)
    code, err = _invoke("view", str(run))
    assert code == 2
    assert err.startswith("error: writing the pages stopped: No space left on device")
    assert len(err.splitlines()) == 1
    _whole_pages(run)

    subprocess.run(["mount", "-o", "remount,size=8m", str(disk)], check=True)
    code, err = _invoke("view", str(run))
    assert code == 0, err
    _whole_pages(run)
