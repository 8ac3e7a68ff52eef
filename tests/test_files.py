"""`write_whole`: a file is replaced whole or left as it was, never cut, on a real full disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from judge_runner.files import write_whole
from tests.conftest import fill_disk


def test_writes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_whole(target, "one")
    write_whole(target, "two")
    assert target.read_text() == "two" and sorted(p.name for p in tmp_path.iterdir()) == [
        "report.json"]


def test_a_full_disk_keeps_the_old_file_whole(small_disk: Callable[[str], Path]) -> None:
    disk = small_disk("1m")
    target = disk / "report.json"
    write_whole(target, "old\n")
    fill_disk(disk, leave=16 * 1024)
    with pytest.raises(OSError, match="No space left"):
        write_whole(target, "x" * (256 * 1024))
    assert target.read_text() == "old\n"
    assert not (disk / "report.json.partial").exists()
