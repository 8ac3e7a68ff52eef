"""Writing under an output root without ever escaping it.

Every write goes through `SafeTree`: the relative path must be plain (no absolute part, no ``..``),
no existing component may be a symlink, and the resolved parent must lie inside the root. A write
that breaks any rule raises `UnsafePathError` and nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath


class UnsafePathError(Exception):
    """A path that would land outside the output root, or go through a symlink."""


class SafeTree:
    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()

    def path(self, rel: str) -> Path:
        """The checked destination for `rel` (a POSIX relative path)."""
        pure = PurePosixPath(rel)
        if not rel or pure.is_absolute() or ".." in pure.parts or "\\" in rel or "\0" in rel:
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
        target = self.path(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(self.root):
            raise UnsafePathError(f"refusing path {rel!r}: resolves outside {self.root}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return target

    def write_text(self, rel: str, text: str) -> Path:
        return self.write_bytes(rel, text.encode("utf-8"))


def walk_files(root: Path) -> Iterator[tuple[str, Path | None]]:
    """Regular files under `root` as (POSIX relative path, path), sorted, symlinks not followed.

    A symlink (file or directory) is yielded with path None so the caller can report it.
    """
    entries: list[tuple[str, Path | None]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        for name in list(dirnames):
            if (base / name).is_symlink():
                dirnames.remove(name)
                entries.append(((base / name).relative_to(root).as_posix(), None))
        for name in filenames:
            path = base / name
            rel = path.relative_to(root).as_posix()
            entries.append((rel, None if path.is_symlink() else path))
    yield from sorted(entries, key=lambda e: e[0])
