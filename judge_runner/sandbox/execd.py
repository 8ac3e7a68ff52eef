"""The in-container command server and the host side of its channel.

Why: a ``docker exec`` costs 30-60 ms of engine and runc work before the command even starts,
more than the whole per-command budget. Instead the container's main process is a small
Python server (this file's `SERVER_SOURCE`, run by the image's python3) that reads one JSON
request per line on stdin, runs the argv (the timeout wrapper), and streams back framed
output over the container's attached stdout. A command then costs one fork/exec inside the
container.

Frames on the server's stdout: 1 byte kind, 4 bytes big-endian length, payload. Kinds:
``r`` ready (once; payload: the server's pid), ``o``/``e`` a chunk of the command's
stdout/stderr, ``x`` end (JSON ``{"code": int}`` or ``{"error": str}``). Every byte a
command prints is inside a frame the server wrote, so command output cannot forge an end
frame. The server makes itself
non-dumpable, so commands running as the same uid cannot open its descriptors through /proc
or ptrace it; they can only kill it, which surfaces as a SandboxError, never a wrong result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from judge_runner.sandbox.base import SandboxError
from judge_runner.sandbox.output import CappedStream

SERVER_SOURCE = r"""
import ctypes, json, os, selectors, struct, subprocess, sys
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
out = sys.stdout.buffer
def send(kind, data):
    out.write(kind + struct.pack(">I", len(data)) + data)
    out.flush()
send(b"r", str(os.getpid()).encode())
for line in sys.stdin.buffer:
    req = json.loads(line)
    try:
        proc = subprocess.Popen(req["argv"], cwd=req["cwd"], env=req["env"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, close_fds=True)
    except OSError as exc:
        send(b"x", json.dumps({"error": str(exc)}).encode())
        continue
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, b"o")
    sel.register(proc.stderr, selectors.EVENT_READ, b"e")
    while sel.get_map():
        for key, _ in sel.select():
            chunk = os.read(key.fd, 65536)
            if chunk:
                send(key.data, chunk)
            else:
                sel.unregister(key.fileobj)
                key.fileobj.close()
    sel.close()
    send(b"x", json.dumps({"code": proc.wait()}).encode())
"""


# Exit status reported when the server could not start a command (as a shell reports it).
CANNOT_START = 126
_ENGINE_STDERR = 2
_READY, _OUT, _ERR, _END = b"roex"  # the server's frame kinds, as byte values


class _Frames:
    """Splits a byte stream into length-prefixed frames: a header of `header` bytes whose first
    byte tags the frame and whose last four give the payload size (big-endian). The engine's
    attach stream uses 8-byte headers (tag: 1 stdout, 2 stderr); the server's own frames inside
    its stdout use 5-byte ones (tag: a kind letter). Frames are at most 64 KiB here."""

    def __init__(self, header: int) -> None:
        self._header = header
        self._buf = bytearray()

    def feed(self, data: bytes) -> Iterator[tuple[int, bytes]]:
        self._buf += data
        h = self._header
        while len(self._buf) >= h:
            size = int.from_bytes(self._buf[h - 4:h], "big")
            if len(self._buf) < h + size:
                return
            tag = self._buf[0]
            payload = bytes(self._buf[h:h + size])
            del self._buf[:h + size]
            yield tag, payload


class Channel:
    """The host end of one container's server: one request at a time.

    Raises SandboxError when the server's stream ends or carries something unexpected (the
    server died or was killed), which the sandbox treats as a broken container."""

    def __init__(self, sock: Any, name: str) -> None:
        self._raw = sock
        self._sock = getattr(sock, "_sock", sock)
        self._name = name
        self._demux = _Frames(8)
        self._frames = _Frames(5)
        self._pending: list[tuple[int, bytes]] = []
        self._server_stderr = CappedStream(8192)

    def _next_frame(self, deadline: float) -> tuple[int, bytes] | None:
        """The next server frame, or None when `deadline` passes first."""
        while not self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(1 << 16)
            except TimeoutError:
                return None
            except OSError as exc:
                raise SandboxError(f"sandbox {self._name}: channel failed: {exc}") from exc
            if not data:
                raise SandboxError(f"sandbox {self._name}: its command server exited "
                                   f"({self._server_stderr.text().strip() or 'no message'})")
            for stream, payload in self._demux.feed(data):
                if stream == _ENGINE_STDERR:
                    self._server_stderr.feed(payload)
                else:
                    self._pending.extend(self._frames.feed(payload))
        return self._pending.pop(0)

    def wait_ready(self, deadline: float) -> int:
        """Wait for the server's ready frame; returns the server's pid in the container."""
        frame = self._next_frame(deadline)
        if frame is None or frame[0] != _READY or not frame[1].isdigit():
            raise SandboxError(f"sandbox {self._name}: command server did not start "
                               f"({self._server_stderr.text().strip() or 'no message'})")
        return int(frame[1])

    def send(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        line = json.dumps({"argv": argv, "env": env, "cwd": cwd}).encode() + b"\n"
        try:
            self._sock.sendall(line)
        except OSError as exc:
            raise SandboxError(f"sandbox {self._name}: cannot send a command: {exc}") from exc

    def collect(
        self, out: CappedStream, err: CappedStream, deadline: float
    ) -> tuple[bool, int | None]:
        """Route output frames into `out`/`err` until the end frame (True, exit code) or the
        deadline (False, None; the request is still running and must be collected again)."""
        while True:
            frame = self._next_frame(deadline)
            if frame is None:
                return False, None
            kind, payload = frame
            if kind == _OUT:
                out.feed(payload)
            elif kind == _ERR:
                err.feed(payload)
            elif kind == _END:
                end = json.loads(payload)
                if "error" in end:
                    # The command could not start (too long for argv, no pid left): a failed
                    # command with the shell's "cannot execute" status, not a broken sandbox.
                    err.feed(f"sandbox: cannot start the command: {end['error']}\n".encode())
                    return True, CANNOT_START
                return True, int(end["code"])
            else:
                raise SandboxError(f"sandbox {self._name}: unexpected frame {bytes([kind])!r}")

    def close(self) -> None:
        for closable in (self._raw, self._sock):
            try:
                closable.close()
            except OSError:
                continue
