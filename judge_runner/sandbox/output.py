"""Capping command output while it streams, so a command printing gigabytes costs no memory.

A capped stream keeps its head and its tail (the end of a log is where errors and summaries
are) and puts a marker between them that says how many bytes were cut.
"""

from __future__ import annotations

from collections import deque


def cut_marker(n_bytes: int) -> bytes:
    return f"\n[... {n_bytes} bytes cut by the sandbox output cap ...]\n".encode()


class CappedStream:
    """Accumulates at most ``cap`` bytes of a byte stream: the first half and the last half.

    ``feed`` may be called with chunks of any size; memory stays O(cap + one chunk).
    """

    def __init__(self, cap: int) -> None:
        self._head_cap = cap - cap // 2
        self._tail_cap = cap // 2
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk or self._tail_cap == 0:
            return
        self._tail.append(chunk[-self._tail_cap:])
        self._tail_len += len(self._tail[-1])
        # Drop whole chunks from the front while the rest still covers the tail.
        while self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())

    @property
    def cut(self) -> int:
        """Bytes dropped so far."""
        return max(0, self.total - self._head_cap - self._tail_cap)

    @property
    def truncated(self) -> bool:
        return self.cut > 0

    def value(self) -> bytes:
        """The kept bytes, with the cut marker between head and tail when anything was cut."""
        tail = b"".join(self._tail)[-self._tail_cap:] if self._tail_cap else b""
        if not self.truncated:
            return bytes(self._head) + tail
        return bytes(self._head) + cut_marker(self.cut) + tail

    def text(self) -> str:
        return self.value().decode("utf-8", errors="replace")
