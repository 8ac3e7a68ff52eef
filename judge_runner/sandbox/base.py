"""The Sandbox Protocol: where a judge runs commands against one case package."""

from __future__ import annotations

from enum import StrEnum
from types import TracebackType
from typing import Protocol, Self

from pydantic import BaseModel, ConfigDict

from judge_runner.closing import ClosedOnExit

__all__ = [
    "CASE_MOUNT",
    "SCRATCH_DIR",
    "ClosedOnExit",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxKind",
]

CASE_MOUNT = "/case"
SCRATCH_DIR = "/scratch"


class SandboxKind(StrEnum):
    """Where a judge's commands run: the one list of sandbox kinds, and what `--sandbox` takes.

    AUTO and NONE are choices, not sandboxes: AUTO opens DOCKER when an engine answers, else
    LOCAL; NONE is for judges that run no command. HARBOR is a Harbor trial's own container,
    opened by the Harbor agent (the `judge-runner` commands cannot open it).
    """

    AUTO = "auto"
    DOCKER = "docker"
    LOCAL = "local"
    HARBOR = "harbor"
    NONE = "none"

    @property
    def configured_as(self) -> SandboxKind:
        """The kind a judge's configuration records. A Harbor trial runs the judge image the
        docker kind runs, so the two record the same and their runs pair (one config hash)."""
        return SandboxKind.DOCKER if self is SandboxKind.HARBOR else self


class ExecResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    stdout: str
    stderr: str
    exit_code: int | None  # None when the command was killed before it exited
    timed_out: bool = False
    truncated: bool = False  # output was capped; the text carries a marker saying how much
    duration: float = 0.0


class SandboxError(RuntimeError):
    """The sandbox itself failed (engine gone, container died) — not the command inside it."""


class Sandbox(Protocol):
    kind: SandboxKind  # a concrete kind: never AUTO or NONE
    isolated: bool  # whether commands are kept off the host, its network and other cases

    def exec(self, cmd: str, timeout: float | None = None) -> ExecResult: ...

    def read_file(self, path: str, max_bytes: int | None = None) -> bytes: ...

    def list_files(self, path: str = CASE_MOUNT) -> list[str]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
