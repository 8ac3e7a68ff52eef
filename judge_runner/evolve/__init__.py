"""Evolution: JudgeSkill rewrites proposed from misjudged dev cases and promoted through the
fixed gate; one resumable state per run."""

from judge_runner.evolve.evaluate import JUDGMENTS_DIR, SkillEvaluator
from judge_runner.evolve.loop import CANDIDATES_DIR, Evolution, EvolveError, skill_diff
from judge_runner.evolve.policies import (
    STOP_FILE,
    Acceptance,
    BeatsIncumbent,
    Stop,
    StopCondition,
    StopReason,
)
from judge_runner.evolve.report import REPORT_FILE, render_report
from judge_runner.evolve.state import (
    CandidateRecord,
    CandidateStatus,
    EvolveConfig,
    EvolveState,
    StateInvariantError,
    Strategy,
)

__all__ = [
    "CANDIDATES_DIR",
    "JUDGMENTS_DIR",
    "REPORT_FILE",
    "STOP_FILE",
    "Acceptance",
    "BeatsIncumbent",
    "CandidateRecord",
    "CandidateStatus",
    "Evolution",
    "EvolveConfig",
    "EvolveError",
    "EvolveState",
    "SkillEvaluator",
    "StateInvariantError",
    "Stop",
    "StopCondition",
    "StopReason",
    "Strategy",
    "render_report",
    "skill_diff",
]
