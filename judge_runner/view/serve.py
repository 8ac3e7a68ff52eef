"""Serving written viewer pages on 127.0.0.1 with the standard library's HTTP server.

The pages need no server (they open from disk); serving is for a browser on the same machine
that prefers http. Only loopback is bound, and only the given folder is served.
"""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def make_server(root: Path, port: int) -> ThreadingHTTPServer:
    """A server for the files under `root` on 127.0.0.1:`port` (0 picks a free port)."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    return ThreadingHTTPServer((HOST, port), handler)


def url_of(server: ThreadingHTTPServer, root: Path, page: Path) -> str:
    relative = page.resolve().relative_to(root.resolve()).as_posix()
    return f"http://{HOST}:{server.server_address[1]}/{relative}"
