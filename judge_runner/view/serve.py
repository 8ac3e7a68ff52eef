"""Serving written viewer pages on 127.0.0.1 with the standard library's HTTP server.

The pages need no server (they open from disk); serving is for a browser on the same machine
that prefers http. What is served is exactly what `view` wrote: the files under the `view/`
folders involved and the compare page, nothing beside them (no run store, no labels, no other
file of a shared parent folder). URLs are paths below the folder holding them all, so the pages'
relative links work; anything else is 404, a folder is 404 (no listing), and a request whose
`Host` is not a loopback name is refused with 403, so a page on another site cannot reach the
server through a rebound DNS name. Only loopback is bound.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})


@dataclass(frozen=True)
class Served:
    """What a server may answer with: files under `folders`, and the single `files`."""

    folders: tuple[Path, ...]
    files: tuple[Path, ...] = ()

    @classmethod
    def of(cls, folders: Sequence[Path], files: Sequence[Path] = ()) -> Served:
        return cls(tuple(p.resolve() for p in folders), tuple(p.resolve() for p in files))

    @property
    def root(self) -> Path:
        """The folder URLs are relative to: the deepest one holding everything served."""
        return Path(os.path.commonpath([*self.folders, *(f.parent for f in self.files)]))

    def allows(self, path: Path) -> bool:
        """Whether `path` (symlinks resolved) is a regular file that was written as a page."""
        real = path.resolve()
        if not real.is_file():
            return False
        return real in self.files or any(real.is_relative_to(f) for f in self.folders)


def host_allowed(host: str | None, port: int) -> bool:
    """A `Host` header naming a loopback address or localhost, with this port or none."""
    if not host:
        return False
    name, sep, given = host.strip().lower().rpartition(":")
    if not sep or name.endswith(":"):  # no port, or a bare IPv6 literal
        name, given = host.strip().lower(), ""
    return name in LOOPBACK_NAMES and given in ("", str(port))


class _PageHandler(SimpleHTTPRequestHandler):
    served: Served

    def __init__(self, *args: Any, served: Served, **kwargs: Any) -> None:
        self.served = served
        super().__init__(*args, directory=str(served.root), **kwargs)

    def send_head(self) -> Any:
        if not host_allowed(self.headers.get("Host"), self.port):
            self.send_error(HTTPStatus.FORBIDDEN, "the Host is not a loopback name")
            return None
        if not self.served.allows(Path(self.translate_path(self.path))):
            self.send_error(HTTPStatus.NOT_FOUND, "not a page of this view")
            return None
        return super().send_head()

    @property
    def port(self) -> int:
        address = self.server.server_address
        return int(address[1]) if isinstance(address, tuple) else 0

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "not a page of this view")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass


def make_server(served: Served, port: int) -> ThreadingHTTPServer:
    """A server for the pages of `served` on 127.0.0.1:`port` (0 picks a free port)."""
    handler = functools.partial(_PageHandler, served=served)
    return ThreadingHTTPServer((HOST, port), handler)


def url_of(server: ThreadingHTTPServer, served: Served, page: Path) -> str:
    relative = page.resolve().relative_to(served.root).as_posix()
    return f"http://{HOST}:{server.server_address[1]}/{relative}"
