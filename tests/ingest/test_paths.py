"""Reading trial files: only regular files are opened for content, and never a blocking one."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from judge_runner.ingest.paths import (
    NotRegularFileError,
    SafeTree,
    UnsafePathError,
    read_regular,
    walk_files,
)


def test_walk_lists_every_kind_of_entry_and_opens_none(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "file.txt").write_text("x")
    os.mkfifo(tmp_path / "pipe")  # opening it for reading would block: the walk must not
    os.symlink("sub", tmp_path / "dir-link")
    os.symlink("loop", tmp_path / "loop")
    os.symlink("nowhere", tmp_path / "dangling")
    entries = {e.rel: (e.path is not None, e.skipped) for e in walk_files(tmp_path)}
    assert entries == {
        "dangling": (False, "dangling symlink"),
        "dir-link": (False, "symlink to a directory"),
        "loop": (False, "symlink loop"),
        "pipe": (False, "named pipe (FIFO)"),
        "sub/file.txt": (True, None),
    }


def test_read_regular_refuses_pipes_links_and_oversized_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "big").write_bytes(b"x" * 100)
    os.symlink("big", tmp_path / "link")
    with pytest.raises(NotRegularFileError, match=r"named pipe \(FIFO\), not a regular file"):
        read_regular(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="symlink to a regular file"):
        read_regular(tmp_path / "link")
    with pytest.raises(NotRegularFileError, match="100 bytes, over the 99 byte limit"):
        read_regular(tmp_path / "big", 99)
    assert read_regular(tmp_path / "big", 100) == b"x" * 100


def test_a_file_swapped_for_a_pipe_never_blocks_a_read(tmp_path: Path) -> None:
    """Between the type check and the open another process may swap the file for a pipe; the
    open does not wait for a writer and the check on the open descriptor refuses it."""
    target = tmp_path / "swapped"
    regular, pipe = tmp_path / "regular", tmp_path / "pipe"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            regular.write_bytes(b"data")
            os.replace(regular, target)
            os.mkfifo(pipe)
            os.replace(pipe, target)

    outcomes: set[bytes] = set()

    def read_for_two_seconds() -> None:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                outcomes.add(read_regular(target))
            except NotRegularFileError as exc:
                outcomes.add(str(exc).encode())
            except FileNotFoundError:
                outcomes.add(b"gone")

    swapper = threading.Thread(target=swap, daemon=True)
    reader = threading.Thread(target=read_for_two_seconds, daemon=True)
    swapper.start()
    reader.start()
    reader.join(timeout=60)  # a blocked open would never return: catch the hang, not a speed
    stop.set()
    swapper.join(timeout=10)
    assert not reader.is_alive(), "a read blocked on a pipe"
    assert outcomes <= {b"data", b"named pipe (FIFO), not a regular file", b"gone"}
    assert b"named pipe (FIFO), not a regular file" in outcomes


def test_a_nul_in_a_path_is_named_as_such(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError, match="contains a NUL byte"):
        SafeTree(tmp_path).write_bytes("a\x00b", b"x")
