"""Choosing a sandbox: ``docker``, ``local`` or ``auto`` (docker when an engine answers)."""

from __future__ import annotations

import threading
from pathlib import Path

from judge_runner.cases import CasePackage
from judge_runner.log import get_logger
from judge_runner.sandbox import engine
from judge_runner.sandbox.base import Sandbox, SandboxError, SandboxKind
from judge_runner.sandbox.limits import SandboxLimits
from judge_runner.sandbox.registry import SandboxRequest, opener

log = get_logger(__name__)
_warned = threading.Event()


def resolve_kind(kind: SandboxKind | str) -> SandboxKind:
    """The concrete kind `kind` means on this machine.

    ``auto`` is ``docker`` when an engine answers a ping, else ``local``. An engine that answers
    but lacks the image is *not* a reason to fall back: `open_sandbox` then fails and says how
    to build it, because quietly losing isolation would be worse.

    Raises:
        SandboxError: `kind` is not a sandbox kind, or is ``none``.
    """
    try:
        chosen = SandboxKind(kind)
    except ValueError:
        choices = ", ".join(k.value for k in SandboxKind if k is not SandboxKind.NONE)
        raise SandboxError(f"unknown sandbox kind {kind!r}; expected one of {choices}") from None
    if chosen is SandboxKind.NONE:
        raise SandboxError("sandbox 'none' opens no sandbox")
    if chosen is SandboxKind.AUTO:
        return SandboxKind.DOCKER if engine.engine_answers() else SandboxKind.LOCAL
    return chosen


def open_sandbox(
    kind: SandboxKind | str,
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
    root = case_dir.root if isinstance(case_dir, CasePackage) else Path(case_dir)
    box = opener(concrete)(SandboxRequest(root, limits=limits, image=image, labels=labels or {}))
    if not box.isolated and not _warned.is_set():
        _warned.set()
        log.warning("sandbox.local_not_isolated",
                    detail="commands run directly on this host as the current user; the case "
                           "is a copy, but the network and host files stay reachable. Use "
                           "--sandbox docker for isolation.")
    return box
