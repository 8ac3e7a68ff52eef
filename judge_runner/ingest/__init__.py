"""Ingest: Harbor trial folders → normalized case packages (see `docs/case-format.md`).

The names below load on first use, so that importing a submodule (the CLI's `commands`, say)
does not import the whole importer. (`judge_runner.ingest.normalize` is the submodule; its
function is `judge_runner.ingest.normalize.normalize`.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge_runner.ingest.importer import (
        ImportOptions,
        OutputDirError,
        case_id_for,
        import_trials,
    )
    from judge_runner.ingest.normalize import NormalizeOptions
    from judge_runner.ingest.report import ImportReport, TrialReport, TrialStatus

_EXPORTS = {
    "ImportOptions": "importer",
    "OutputDirError": "importer",
    "case_id_for": "importer",
    "import_trials": "importer",
    "NormalizeOptions": "normalize",
    "ImportReport": "report",
    "TrialReport": "report",
    "TrialStatus": "report",
}

__all__ = [
    "ImportOptions",
    "ImportReport",
    "NormalizeOptions",
    "OutputDirError",
    "TrialReport",
    "TrialStatus",
    "case_id_for",
    "import_trials",
]


def __getattr__(name: str) -> Any:
    """Import the submodule defining `name`; AttributeError for anything else."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
