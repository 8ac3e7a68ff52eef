"""Choosing a sandbox: ``docker``, ``local`` or ``auto`` (docker when an engine answers)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

from judge_runner.cases import CasePackage
from judge_runner.log import get_logger
from judge_runner.sandbox import engine
from judge_runner.sandbox.base import Sandbox, SandboxError
from judge_runner.sandbox.docker import DockerSandbox
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.local import LocalSandbox

SandboxKind = Literal["docker", "local", "auto"]
KINDS: tuple[str, ...] = ("docker", "local", "auto")

log = get_logger(__name__)
_warned = threading.Event()


def resolve_kind(kind: str) -> Literal["docker", "local"]:
    """The concrete kind `kind` means on this machine.

    ``auto`` is ``docker`` when an engine answers a ping, else ``local``. An engine that answers
    but lacks the image is *not* a reason to fall back: `open_sandbox` then fails and says how
    to build it, because quietly losing isolation would be worse.

    Raises:
        SandboxError: `kind` is not one of docker, local, auto.
    """
    if kind == "docker":
        return "docker"
    if kind == "local":
        return "local"
    if kind == "auto":
        return "docker" if engine.engine_answers() else "local"
    raise SandboxError(f"unknown sandbox kind {kind!r}; expected one of {', '.join(KINDS)}")


def open_sandbox(
    kind: str,
    case_dir: str | Path | CasePackage,
    *,
    limits: SandboxLimits | None = None,
    image: str | None = None,
    labels: dict[str, str] | None = None,
) -> Sandbox:
    """Start a sandbox for the case package at `case_dir` (a directory ``cases/<id>`` or a
    `CasePackage`); use the result as a context manager.

    `image` and `labels` apply to docker only. A local sandbox logs a warning, once per
    process, that it is not isolation.

    Raises:
        SandboxError: unknown kind, no engine for ``docker``, missing image, unreadable case.
    """
    concrete = resolve_kind(kind)
    if isinstance(case_dir, CasePackage):
        case_dir = case_dir.root
    if concrete == "docker":
        return DockerSandbox(Path(case_dir), limits=limits, image=image, labels=labels)
    if not _warned.is_set():
        _warned.set()
        log.warning("sandbox.local_not_isolated",
                    detail="commands run directly on this host as the current user; the case "
                           "is a copy, but the network and host files stay reachable. Use "
                           "--sandbox docker for isolation.")
    return LocalSandbox(Path(case_dir), limits=limits)
