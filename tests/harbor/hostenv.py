"""The exec of a Harbor environment over this host's bash, for tests of the code that talks to
a trial's environment (HarborSandbox, JudgeAgent's probes) without a container."""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import dataclass


@dataclass
class HostResult:
    stdout: str | None
    stderr: str | None
    return_code: int


class HostEnvironment:
    """Commands run with `bash -c` on this host, stdout and stderr merged as Harbor returns
    them. `user` is ignored: the commands run as the test's own user. `timeouts` records the
    timeout_sec of every call."""

    def __init__(self) -> None:
        self.timeouts: list[int | None] = []

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> HostResult:
        self.timeouts.append(timeout_sec)
        proc = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), timeout_sec)
        assert proc.returncode is not None
        return HostResult(stdout=out.decode(), stderr=None, return_code=proc.returncode)
