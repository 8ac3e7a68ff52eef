"""The rules judge (``--judge rules``): evidence checks declared in a JudgeSkill's checks.toml.

Public API: `make_judge` (registry factory), `RulesJudge`, `load_rules`/`dump_rules` and the
optimizer's `propose`.
"""

from __future__ import annotations

from judge_runner.judges.llm import JudgeConfigError, check_knobs
from judge_runner.judges.registry import JudgeOptions
from judge_runner.judges.rules.judge import NAME, RulesJudge, default_skill_dir
from judge_runner.judges.rules.spec import RulesError, RuleSet, dump_rules, load_rules

NO_SANDBOX = frozenset({"none", "auto"})

__all__ = ["RuleSet", "RulesError", "RulesJudge", "dump_rules", "load_rules", "make_judge"]


def make_judge(options: JudgeOptions) -> RulesJudge:
    """Build the rules judge from CLI options.

    Uses ``options.skill`` (a JudgeSkill directory holding checks.toml) or the bundled
    `judgeskills/v2`. Raises `RulesError` when checks.toml is missing or invalid, and
    `ValueError` for a sandbox other than none/auto (no check executes artifacts yet), and
    `JudgeConfigError` for any `-o` knob: the rules judge has none (its settings live in
    checks.toml).
    """
    check_knobs(options, NAME, frozenset(), model_client=False)
    if options.sandbox not in NO_SANDBOX:
        raise ValueError(f"the rules judge runs without a sandbox; got sandbox={options.sandbox!r}"
                         " (use --sandbox none)")
    skill = options.skill or default_skill_dir()
    if options.skill is None and not skill.is_dir():
        # An installed package has no source tree beside it to take judgeskills/v2 from.
        raise JudgeConfigError(f"no default JudgeSkill at {skill}; give one with --skill DIR")
    return RulesJudge(skill, allow_abstain=options.allow_abstain)
