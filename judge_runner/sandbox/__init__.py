"""Sandboxes in which judges inspect a case.

`open_sandbox(kind, case_dir)` returns a started `Sandbox` (docker or local) to use as a
context manager; `SandboxLimits` sets its resources. A program that opens Docker sandboxes in
worker threads calls `install_cleanup_hooks()` on its main thread first.
"""

from judge_runner.sandbox.base import (
    CASE_MOUNT,
    SCRATCH_DIR,
    ClosedOnExit,
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxKind,
)
from judge_runner.sandbox.docker import install_cleanup_hooks
from judge_runner.sandbox.engine import default_image
from judge_runner.sandbox.files import (
    READ_FILE_SCRIPT,
    list_files_argv,
    parse_file_list,
    read_file_result,
)
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.output import CappedStream
from judge_runner.sandbox.registry import SandboxOpener, SandboxRequest, sandbox_kind
from judge_runner.sandbox.select import open_sandbox, resolve_kind
from judge_runner.sandbox.wrapper import exec_wrapped, sweep_argv

__all__ = [
    "CASE_MOUNT",
    "READ_FILE_SCRIPT",
    "SCRATCH_DIR",
    "CappedStream",
    "ClosedOnExit",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxKind",
    "SandboxLimits",
    "SandboxOpener",
    "SandboxRequest",
    "default_image",
    "exec_wrapped",
    "install_cleanup_hooks",
    "list_files_argv",
    "open_sandbox",
    "parse_file_list",
    "read_file_result",
    "resolve_kind",
    "sandbox_kind",
    "sweep_argv",
]
