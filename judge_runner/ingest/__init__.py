"""Ingest: Harbor trial folders → normalized case packages (see `docs/case-format.md`)."""

from judge_runner.ingest.importer import ImportOptions, OutputDirError, case_id_for, import_trials
from judge_runner.ingest.normalize import NormalizeOptions, normalize
from judge_runner.ingest.report import ImportReport, TrialReport, TrialStatus

__all__ = [
    "ImportOptions",
    "ImportReport",
    "NormalizeOptions",
    "OutputDirError",
    "TrialReport",
    "TrialStatus",
    "case_id_for",
    "import_trials",
    "normalize",
]
