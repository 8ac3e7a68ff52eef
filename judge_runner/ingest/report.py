"""`import_report.json`: one entry per trial found, saying what became of it and why."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import IMPORT_REPORT_FILE, Label

REPORT_FILE = IMPORT_REPORT_FILE


class TrialStatus(StrEnum):
    IMPORTED = "imported"
    SKIPPED = "skipped"  # deliberately not imported (e.g. a duplicate of another trial)
    FAILED = "failed"  # could not be imported; `reason` says why


class TrialReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trial_path: str
    status: TrialStatus
    case_id: str | None = None
    task: str | None = None
    agent: str | None = None  # the harness and model, when the trial said (for the funnel)
    model: str | None = None
    label: Label | None = None
    reason: str | None = None
    warnings: list[str] = Field(default_factory=list)


class ImportReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: str = "1.0"
    trials: list[TrialReport]
    unmapped_categories: list[str] = Field(default_factory=list)

    def count(self, status: TrialStatus) -> int:
        return sum(1 for t in self.trials if t.status is status)
