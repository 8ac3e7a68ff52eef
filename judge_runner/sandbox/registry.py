"""Sandbox kinds by name: each kind's module registers how to open one for a case.

Adding a sandbox kind is one module, `judge_runner/sandbox/<kind>.py`, that defines the
sandbox and decorates its opener with `@sandbox_kind(SandboxKind.X)`, and one line: the member
``X = "<kind>"`` in `SandboxKind`. The module is imported the first time its kind is opened.
A kind that lives elsewhere (Harbor's trial sandbox, in `judge_runner.harbor`) registers when
its own module is imported. `open_sandbox` resolves AUTO and refuses NONE and a kind nobody
registered, naming those that are.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge_runner.sandbox.base import Sandbox, SandboxError, SandboxKind
from judge_runner.sandbox.limits import SandboxLimits


@dataclass(frozen=True)
class SandboxRequest:
    """What opening a sandbox for one case needs. `image` and `labels` are for container
    kinds; others ignore them."""

    case_dir: Path
    limits: SandboxLimits | None = None
    image: str | None = None
    labels: dict[str, str] = field(default_factory=dict)


type SandboxOpener = Callable[[SandboxRequest], Sandbox]

_OPENERS: dict[SandboxKind, SandboxOpener] = {}


def sandbox_kind(kind: SandboxKind) -> Callable[[SandboxOpener], SandboxOpener]:
    """Register the decorated function as the opener of `kind`.

    Raises ValueError for AUTO or NONE (choices, not sandboxes) and for a kind registered twice.
    """

    def register(opener: SandboxOpener) -> SandboxOpener:
        if kind in (SandboxKind.AUTO, SandboxKind.NONE):
            raise ValueError(f"{kind.value!r} is a choice, not a sandbox kind")
        if kind in _OPENERS:
            raise ValueError(f"sandbox kind {kind.value!r} is registered twice")
        _OPENERS[kind] = opener
        return opener

    return register


def opener(kind: SandboxKind) -> SandboxOpener:
    """The opener of a concrete kind; SandboxError naming the registered kinds otherwise."""
    if kind not in _OPENERS:
        module = f"{__package__}.{kind.value}"
        try:
            importlib.import_module(module)  # registers the kind as it loads
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise  # the kind's module is there but a dependency of it is missing
    try:
        return _OPENERS[kind]
    except KeyError:
        raise SandboxError(f"no sandbox of kind {kind.value!r} can be opened here: no module "
                           "registered it") from None
