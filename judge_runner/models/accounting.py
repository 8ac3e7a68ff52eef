"""Token and cost accounting from recorded transcripts: per call, per case, per run.

Each response carries its own `Usage` (per call); a case's transcript sums to the case's usage
and a run directory's transcripts to the run's. Reading the numbers back from transcripts
(instead of trusting in-memory counters) lets a report audit what was actually spent, including
calls of cases whose verdict was an error.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.models.base import Usage
from judge_runner.models.recording import TRANSCRIPT, read_transcript


class RunUsage(BaseModel):
    """Usage of a run: the total, per case folder (relative path), and unreadable lines."""

    model_config = ConfigDict(extra="forbid")

    total: Usage = Field(default_factory=Usage)
    per_case: dict[str, Usage] = Field(default_factory=dict)
    failed_calls: int = 0  # recorded calls that ended in an error (also in total.failed_calls)
    problems: list[str] = Field(default_factory=list)


def transcript_usage(path: Path) -> Usage:
    """Sum of the usage of every call in one transcript, failed ones counted as failed calls
    with their retries (unreadable lines skipped)."""
    entries, _ = read_transcript(path)
    return sum((e.usage for e in entries), Usage())


def run_usage(run_dir: Path) -> RunUsage:
    """Usage of every transcript under `run_dir`, keyed by case folder, in sorted order."""
    result = RunUsage()
    for path in sorted(run_dir.rglob(TRANSCRIPT)):
        entries, problems = read_transcript(path)
        case_usage = sum((e.usage for e in entries), Usage())
        result.per_case[path.parent.relative_to(run_dir).as_posix()] = case_usage
        result.total = result.total + case_usage
        result.failed_calls += sum(1 for e in entries if e.response is None)
        result.problems += problems
    return result
