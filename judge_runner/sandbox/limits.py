"""Resource limits shared by every sandbox kind, with the defaults a judging run uses."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SandboxLimits(BaseModel):
    """What one case's sandbox may use. Every knob, with its default:

    - ``exec_timeout`` (60 s): wall-clock limit of one command when the caller gives none; the
      whole process tree is killed when it passes (TERM, then KILL ``kill_grace`` later).
    - ``kill_grace`` (1 s): time between TERM and KILL on timeout.
    - ``output_cap`` (1 MiB): bytes kept of stdout and of stderr each; the rest is counted,
      dropped while streaming and replaced by a marker saying how many bytes were cut.
    - ``memory_mb`` (1024): memory limit, swap included (docker: cgroup; local: address space).
    - ``cpus`` (1.0): CPU share (docker only; local limits CPU *time* to ``cpu_seconds``).
    - ``cpu_seconds`` (600): CPU time per command (local only).
    - ``pids`` (256): processes and threads at once (docker: cgroup; local: RLIMIT_NPROC,
      which Linux does not enforce for root).
    - ``scratch_mb`` (256): size of the writable scratch directory (and of /tmp).
    - ``max_read_bytes`` (32 MiB): largest file ``read_file`` returns without an explicit limit.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    exec_timeout: float = Field(default=60.0, gt=0)
    kill_grace: float = Field(default=1.0, gt=0)
    output_cap: int = Field(default=1 << 20, ge=1024)
    memory_mb: int = Field(default=1024, ge=64)
    cpus: float = Field(default=1.0, gt=0)
    cpu_seconds: int = Field(default=600, ge=1)
    pids: int = Field(default=256, ge=16)
    scratch_mb: int = Field(default=256, ge=1)
    max_read_bytes: int = Field(default=32 << 20, ge=1)
