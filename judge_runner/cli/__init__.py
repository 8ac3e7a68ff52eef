"""The command line: the `judge-runner` application (`cli.root`) and one module of commands per
stage. This is the only layer that composes stages; no stage imports it.

`app` and `main` are loaded on first use, so that importing one stage's command module (for
its options, in a test) loads that module alone, not every stage's implementation.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from judge_runner.cli import root

        return getattr(root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
