"""Experiments: a plan of judge rows over one case set, estimated before anything is spent, run
within a budget into ordinary run directories, and reported as the paper's tables."""

from judge_runner.experiments.estimate import PlanEstimate, Range, RowEstimate
from judge_runner.experiments.plan import Plan, PlanError, Row, load_plan
from judge_runner.experiments.report import ExperimentReport, build_report, write_report
from judge_runner.experiments.run import RUN_FILE, PlanRun, RowOutcome, run_plan, write_run
from judge_runner.experiments.study import PreparedRow, Study, estimate, prepare

__all__ = [
    "RUN_FILE",
    "ExperimentReport",
    "Plan",
    "PlanError",
    "PlanEstimate",
    "PlanRun",
    "PreparedRow",
    "Range",
    "Row",
    "RowEstimate",
    "RowOutcome",
    "Study",
    "build_report",
    "estimate",
    "load_plan",
    "prepare",
    "run_plan",
    "write_report",
    "write_run",
]

