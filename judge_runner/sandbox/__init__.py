"""Sandboxes in which judges inspect a case.

`open_sandbox(kind, case_dir)` returns a started `Sandbox` (docker or local) to use as a
context manager; `SandboxLimits` sets its resources. A program that opens Docker sandboxes in
worker threads calls `install_cleanup_hooks()` on its main thread first.
"""

from judge_runner.sandbox.base import CASE_MOUNT, SCRATCH_DIR, ExecResult, Sandbox, SandboxError
from judge_runner.sandbox.docker import install_cleanup_hooks
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.select import KINDS, SandboxKind, open_sandbox, resolve_kind

__all__ = [
    "CASE_MOUNT",
    "KINDS",
    "SCRATCH_DIR",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxKind",
    "SandboxLimits",
    "install_cleanup_hooks",
    "open_sandbox",
    "resolve_kind",
]
