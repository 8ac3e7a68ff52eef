"""Reading trial files without blocking, and writing under an output root without escaping it.

Reading: only regular files are ever opened for their content. `walk_files` lists a tree with
``lstat`` (never following a link) and names everything that is not a regular file — symlink,
named pipe, device, socket — so the caller can report it. `read_regular` opens a file with
``O_NONBLOCK | O_NOFOLLOW`` and checks ``fstat`` again on the open descriptor: a file swapped
for a pipe or a device between the listing and the open is refused without reading a byte and
without waiting for a writer. Reads are bounded by a byte limit.

Writing: every write goes through `SafeTree`: the relative path must be plain (no absolute
part, no ``..``, no NUL), no existing component may be a symlink, and the resolved parent must
lie inside the root. A write that breaks any rule raises `UnsafePathError` and nothing is
written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_NOCTTY", 0))
_CHUNK = 1 << 20


class UnsafePathError(Exception):
    """A path that would land outside the output root, or go through a symlink."""


class SafeTree:
    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()

    def path(self, rel: str) -> Path:
        """The checked destination for `rel` (a POSIX relative path)."""
        pure = PurePosixPath(rel)
        if "\0" in rel:
            raise UnsafePathError(f"refusing path {rel!r}: it contains a NUL byte")
        if not rel or pure.is_absolute() or ".." in pure.parts or "\\" in rel:
            raise UnsafePathError(f"refusing path {rel!r}: must be relative without '..'")
        target = self.root.joinpath(*pure.parts)
        current = self.root
        for part in pure.parts:
            current = current / part
            if current.is_symlink():
                raise UnsafePathError(f"refusing path {rel!r}: {current} is a symlink")
        if not target.parent.resolve().is_relative_to(self.root) and target.parent.exists():
            raise UnsafePathError(f"refusing path {rel!r}: resolves outside {self.root}")
        return target

    def write_bytes(self, rel: str, data: bytes) -> Path:
        target, fd = self._create(rel)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return target

    def write_text(self, rel: str, text: str) -> Path:
        """Write `text` as UTF-8, encoded a chunk at a time (no second copy of a long text)."""
        target, fd = self._create(rel)
        with os.fdopen(fd, "wb") as handle:
            for start in range(0, len(text), _CHUNK):
                handle.write(text[start:start + _CHUNK].encode("utf-8"))
        return target

    def _create(self, rel: str) -> tuple[Path, int]:
        target = self.path(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(self.root):
            raise UnsafePathError(f"refusing path {rel!r}: resolves outside {self.root}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        return target, os.open(target, flags, 0o644)


def plain_name(name: str) -> bool:
    """True for a single plain folder or file name: no separator, no ``..``, no NUL, not empty."""
    return (bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name
            and "\0" not in name)


class NotRegularFileError(Exception):
    """A path that is not a regular file (or is over a size limit); the message says what it is."""


def kind_of(mode: int) -> str:
    """What a file mode describes, in words, for reports."""
    for test, name in ((stat.S_ISREG, "regular file"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "named pipe (FIFO)"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


def describe(path: Path) -> str | None:
    """What sits at `path` without following a final symlink; None when nothing does.

    A symlink is described with where it leads (a loop, a dangling link, a directory, a file).
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISLNK(info.st_mode):
        return kind_of(info.st_mode)
    try:
        target = path.stat()
    except FileNotFoundError:
        return "dangling symlink"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop"
        return f"symlink ({exc.strerror})"
    return f"symlink to a {kind_of(target.st_mode)}"


def read_regular(path: Path, max_bytes: int | None = None) -> bytes:
    """The bytes of `path` if it is a regular file of at most `max_bytes` bytes.

    Raises NotRegularFileError naming what was found instead (symlink, pipe, device, socket,
    directory) or the size over the limit, and OSError for other I/O failures. Never blocks on a
    pipe and never reads a device: the type is checked on the open descriptor.
    """
    with open_regular(path) as (handle, size):
        if max_bytes is not None and size > max_bytes:
            raise NotRegularFileError(f"{size} bytes, over the {max_bytes} byte limit")
        limit = size if max_bytes is None else max_bytes
        data = handle.read(limit + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise NotRegularFileError(f"grew past the {max_bytes} byte limit while being read")
    return data


@contextlib.contextmanager
def open_regular(path: Path) -> Iterator[tuple[BinaryIO, int]]:
    """`path` opened for binary reading with its size, if it is a regular file.

    NotRegularFileError otherwise (see `read_regular`); the descriptor is closed on exit.
    """
    what = describe(path)
    if what is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
    if what != "regular file":
        raise NotRegularFileError(f"{what}, not a regular file")
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # replaced by a symlink after the check
            raise NotRegularFileError("symlink, not a regular file") from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(f"{kind_of(info.st_mode)}, not a regular file")
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb", buffering=_CHUNK)
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, info.st_size


@dataclass(frozen=True)
class TreeEntry:
    """One entry of `walk_files`: `path` set for a regular file, else `skipped` says what it is."""

    rel: str  # POSIX path relative to the walked root
    path: Path | None
    skipped: str | None = None


def walk_files(root: Path) -> Iterator[TreeEntry]:
    """Everything under `root` that is not a directory, sorted by relative path.

    Regular files come with their path. Anything else — a symlink (to a file, to a directory,
    dangling, a loop: never followed), a named pipe, a device, a socket, an unreadable
    directory — comes with path None and `skipped` saying what it is. Nothing is opened here.
    """
    entries: list[TreeEntry] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                children = list(listing)
        except OSError as exc:
            rel = folder.relative_to(root).as_posix()
            entries.append(TreeEntry(rel, None, f"unreadable directory ({exc.strerror})"))
            continue
        for child in children:
            path = Path(child.path)
            rel = path.relative_to(root).as_posix()
            mode = child.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                pending.append(path)
            elif stat.S_ISREG(mode):
                entries.append(TreeEntry(rel, path))
            else:
                what = describe(path) if stat.S_ISLNK(mode) else None
                entries.append(TreeEntry(rel, None, what or kind_of(mode)))
    yield from sorted(entries, key=lambda e: e.rel)
