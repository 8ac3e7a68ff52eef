"""Evaluation runs: metrics, the SQLite run store, the concurrent runner, comparisons, reports."""

from judge_runner.runs.compare import ChangedCase, Comparison, compare_records, mcnemar
from judge_runner.runs.records import (
    CASES_OUT,
    VERDICTS_FILE,
    CaseRecord,
    RunSummary,
    load_records,
    load_summary,
)
from judge_runner.runs.report import summary_rows
from judge_runner.runs.runner import (
    RunResult,
    build_records,
    judge_in_scope,
    run_eval,
    summarize,
    unverified_quotes,
    write_outputs,
)
from judge_runner.runs.select import SelectionResult, select
from judge_runner.runs.store import (
    STORE_FILE,
    ConfigMismatchError,
    RunInfo,
    RunStore,
    config_hash,
    run_dir_name,
)

__all__ = [
    "CASES_OUT",
    "STORE_FILE",
    "VERDICTS_FILE",
    "CaseRecord",
    "ChangedCase",
    "Comparison",
    "ConfigMismatchError",
    "RunInfo",
    "RunResult",
    "RunStore",
    "RunSummary",
    "SelectionResult",
    "build_records",
    "compare_records",
    "config_hash",
    "judge_in_scope",
    "load_records",
    "load_summary",
    "mcnemar",
    "run_dir_name",
    "run_eval",
    "select",
    "summarize",
    "summary_rows",
    "unverified_quotes",
    "write_outputs",
]
