"""`judge-runner view ... --serve` in a subprocess, and plain HTTP requests to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(*args: str) -> Iterator[str]:
    """Run `view ARGS --serve --port 0`; yield the URL of the page it serves first."""
    cmd = [sys.executable, "-m", "judge_runner.cli", "view", *args, "--serve", "--port", "0"]
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3 if len(args) > 1 else 2)]
        serving_line = next((ln for ln in lines if ln.startswith("serving ")), "")
        assert serving_line, lines
        yield serving_line.split(" at ")[-1].split(" ")[0]
    finally:
        os.kill(process.pid, signal.SIGINT)
        process.wait(timeout=30)


def get(url: str, host: str | None = None) -> tuple[int, bytes]:
    """Status and body of a GET (an error status is returned, not raised)."""
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
