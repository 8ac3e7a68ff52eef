"""A prebuilt task's `upload/` folder as one gzipped tar that travels inside a shell command.

Every container call of a Harbor trial is a round trip: on local Docker a start of the compose
CLI, on a cloud environment a request. A small upload (a case package and a JudgeSkill are tens
of KB compressed) therefore goes inside JudgeAgent's setup command, base64-encoded, instead of
costing an upload of its own. The archive holds directories, regular files and symlinks (stored
as links, never followed), root's, with the modes the export gave them; anything else is left
out, as an upload through the engine would not carry it either.
"""

from __future__ import annotations

import base64
import io
import shlex
import tarfile
from pathlib import Path

# 48 KiB compressed is 64 KiB of base64: half of Linux's limit on one command-line argument
# (128 KiB), which the whole setup command is when `docker compose exec` passes it to bash -c.
DEFAULT_INLINE_BYTES = 48 * 1024


class _TooLarge(Exception):
    pass


class _CappedBuffer(io.BytesIO):
    """Stops the archive as soon as it passes the cap: a large case costs no more than that."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self._cap = cap

    def write(self, data: bytes) -> int:  # type: ignore[override]  # BytesIO takes a Buffer
        if self.tell() + len(data) > self._cap:
            raise _TooLarge
        return super().write(data)


def _as_root(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    if not (info.isdir() or info.isfile() or info.issym()):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def pack(root: Path, max_bytes: int) -> bytes | None:
    """`root`'s contents as a gzipped tar (entries in sorted order, at most `max_bytes`), or
    None when it would be larger or `max_bytes` is 0: then it has to be uploaded."""
    if max_bytes <= 0:
        return None
    out = _CappedBuffer(max_bytes)
    try:
        with tarfile.open(fileobj=out, mode="w:gz") as archive:
            archive.add(root, arcname=".", recursive=True, filter=_as_root)
    except _TooLarge:
        return None
    return out.getvalue()


def unpack_command(archive: bytes, target: str) -> str:
    """Shell (as root): `target` emptied and filled with the archive's contents."""
    blob = base64.b64encode(archive).decode("ascii")
    dest = shlex.quote(target)
    return (f"rm -rf {dest} && mkdir -p {dest} && printf %s {blob}"
            f" | base64 -d | tar -xzf - -C {dest}")
