"""Judges: everything that turns a case package into a verdict."""

from judge_runner.core import Decision, EvidenceRef, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.agent import AgentJudge
from judge_runner.judges.agent.evidence import json_unescaped
from judge_runner.judges.agent.tools import READ_FILE, RECORD_INSPECTION, SUBMIT_VERDICT, WRITE_PLAN
from judge_runner.judges.base import Judge, skill_dir_of
from judge_runner.judges.calibrated import CalibratedJudge, calibrated
from judge_runner.judges.llm import ClientFactory, ModelJudgeSettings, client_factory
from judge_runner.judges.products import (
    CANCELLED_FILE,
    LOG_FILE,
    PLAN_FILE,
    TRANSCRIPT_FILE,
    VERDICT_FILE,
    read_log,
    shown_folder,
    write_cancelled,
    write_products,
)
from judge_runner.judges.registry import (
    JUDGES,
    NO_SKILL,
    JudgeConfigError,
    JudgeOptions,
    JudgeSettings,
    NoSkill,
    SkillChoice,
    UnknownJudgeError,
    build_judge,
    check_options,
    takes,
)
from judge_runner.judges.rules.calibrate import PRIOR as RULES_PRIOR
from judge_runner.judges.rules.calibrate import fit as fit_combination
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.optimizer import DevResult, propose, recombine
from judge_runner.judges.rules.spec import RulesError, RuleSet, ScoreMethod, load_rules
from judge_runner.judges.sizes import (
    AgentShape,
    Call,
    CallsSized,
    CaseCalls,
    case_calls,
    prompt_tokens,
    request_tokens,
    settings_of,
)

__all__ = [
    "CANCELLED_FILE",
    "JUDGES",
    "LOG_FILE",
    "NO_SKILL",
    "PLAN_FILE",
    "READ_FILE",
    "RECORD_INSPECTION",
    "RULES_PRIOR",
    "SUBMIT_VERDICT",
    "TRANSCRIPT_FILE",
    "VERDICT_FILE",
    "WRITE_PLAN",
    "AgentJudge",
    "AgentShape",
    "CalibratedJudge",
    "Call",
    "CallsSized",
    "CaseCalls",
    "ClientFactory",
    "Decision",
    "DevResult",
    "EvidenceRef",
    "Inspection",
    "Judge",
    "JudgeConfigError",
    "JudgeOptions",
    "JudgeSettings",
    "ModelJudgeSettings",
    "NoSkill",
    "Outcome",
    "Plan",
    "PlanItem",
    "RuleSet",
    "RulesError",
    "ScoreMethod",
    "SkillChoice",
    "UnknownJudgeError",
    "Verdict",
    "build_judge",
    "calibrated",
    "case_calls",
    "check_options",
    "client_factory",
    "default_skill_dir",
    "fit_combination",
    "json_unescaped",
    "known_checks",
    "load_rules",
    "prompt_tokens",
    "propose",
    "read_log",
    "recombine",
    "request_tokens",
    "settings_of",
    "shown_folder",
    "skill_dir_of",
    "takes",
    "write_cancelled",
    "write_products",
]
