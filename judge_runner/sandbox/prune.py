"""Finding and removing sandbox containers that a crashed or killed run left behind."""

from __future__ import annotations

import contextlib
import os
import socket
from typing import Any

from pydantic import BaseModel, ConfigDict

from judge_runner.sandbox import engine


class Leftover(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    case: str | None
    owner_host: str | None
    owner_pid: int | None
    created: str | None
    status: str
    owner_alive: bool  # the owning process still runs on this host (so it is not a leftover)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _describe(container: dict[str, Any]) -> Leftover:
    labels: dict[str, str] = container.get("Labels") or {}
    host = labels.get(engine.LABEL_HOST)
    pid_text = labels.get(engine.LABEL_PID, "")
    pid = int(pid_text) if pid_text.isdigit() else None
    # An owner on another host (a shared engine) cannot be checked: count it as alive.
    alive = host != socket.gethostname() or (pid is not None and _pid_alive(pid))
    names = container.get("Names") or [""]
    return Leftover(
        id=str(container["Id"])[:12],
        name=names[0].lstrip("/"),
        case=labels.get(engine.LABEL_CASE),
        owner_host=host,
        owner_pid=pid,
        created=labels.get(engine.LABEL_CREATED),
        status=str(container.get("Status", "")),
        owner_alive=alive,
    )


def list_sandboxes(client: Any) -> list[Leftover]:
    """Every container carrying the sandbox label, running or not, sorted by name."""
    found = client.api.containers(all=True, filters={"label": engine.LABEL_SANDBOX})
    return sorted((_describe(c) for c in found), key=lambda c: c.name)


def prune(client: Any, everything: bool = False, dry_run: bool = False) -> list[Leftover]:
    """Remove sandbox containers whose owning process is gone (all of them with `everything`).

    Returns what was (or, with `dry_run`, would be) removed. A container that vanished in the
    meantime counts as removed."""
    errors = engine.errors()
    chosen = [c for c in list_sandboxes(client) if everything or not c.owner_alive]
    if not dry_run:
        for leftover in chosen:
            with contextlib.suppress(errors.NotFound):
                client.api.remove_container(leftover.id, force=True, v=True)
    return chosen
