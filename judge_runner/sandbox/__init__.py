"""Sandboxes in which judges inspect a case."""

from judge_runner.sandbox.base import CASE_MOUNT, ExecResult, Sandbox, SandboxError

__all__ = ["CASE_MOUNT", "ExecResult", "Sandbox", "SandboxError"]
