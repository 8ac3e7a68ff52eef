"""The machine-readable rules of a JudgeSkill: ``checks.toml`` next to ``SKILL.md``.

Layout::

    [verdict]
    pass_threshold = 0.6        # weighted support share a pass needs
    min_support_weight = 1.0    # a pass also needs at least this much supporting weight
    abstain_margin = 0.05       # with abstention allowed: |score - threshold| < margin abstains

    [score]                     # optional; default method = "weighted"
    method = "log_odds"         # weights are log-odds; score = sigmoid(scale*(S-R) + offset)
    scale = 1.0
    offset = 0.0

    [[check]]
    id = "run_terminated"
    description = "..."
    evidence = "termination"    # which part of the case the check reads
    weight = 3.0
    task_critical = true        # a refutation fails the case on its own
    enabled = true
    [check.thresholds]          # knobs of this check only; numbers, booleans or string lists
    ...

Loading validates every field and names the file and the offending check on failure
(`RulesError`); unknown check ids are rejected so a typo cannot silently disable a rule.
`dump_rules` writes the same layout back deterministically, so an optimizer can emit a new skill.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

CHECKS_FILE = "checks.toml"

ThresholdValue = float | int | bool | str | list[str]


class RulesError(ValueError):
    """checks.toml is missing, unreadable or invalid; the message names the file and the field."""


class EvidenceKind(StrEnum):
    TERMINATION = "termination"
    TRAJECTORY = "trajectory"
    FINAL_MESSAGE = "final_message"
    INSTRUCTION_AND_ARTIFACTS = "instruction+artifacts"
    ARTIFACTS = "artifacts"
    SKILLS = "skills"


class CheckSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str
    evidence: EvidenceKind
    weight: float = Field(ge=0.0)
    # what a supporting finding adds; None: `weight` (a check that nearly always supports, such
    # as "the run terminated", is a gate: its refutation says much, its support little)
    support_weight: float | None = Field(default=None, ge=0.0)
    task_critical: bool = False
    enabled: bool = True
    thresholds: dict[str, ThresholdValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _patterns_compile(self) -> CheckSpec:
        # string lists are regexes; a bad one must fail at load time, not mid-run
        for key, value in self.thresholds.items():
            for pattern in value if isinstance(value, list) else []:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"check {self.id}: {key}: bad regex {pattern!r}: {exc}") \
                        from None
        return self

    def weight_for(self, outcome: str) -> float:
        """The weight a finding with this outcome ("supports", "refutes", ...) carries."""
        if outcome == "supports" and self.support_weight is not None:
            return self.support_weight
        return self.weight

    def number(self, key: str, default: float) -> float:
        value = self.thresholds.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RulesError(f"check {self.id}: threshold {key!r} must be a number, got {value!r}")
        return float(value)

    def words(self, key: str) -> list[str]:
        value = self.thresholds.get(key, [])
        if not isinstance(value, list):
            raise RulesError(f"check {self.id}: threshold {key!r} must be a list of strings")
        return value


class VerdictSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    pass_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    min_support_weight: float = Field(default=1.0, ge=0.0)
    abstain_margin: float = Field(default=0.05, ge=0.0, le=0.5)


class ScoreMethod(StrEnum):
    WEIGHTED = "weighted"  # score = S / (S + R)
    LOG_ODDS = "log_odds"  # score = sigmoid(scale * (S - R) + offset), a calibrated probability


class ScoreSpec(BaseModel):
    """How findings become a score. `log_odds` reads each weight as the log-odds a finding adds
    (support +w, refutation -w); `calibrate` fits the weights, `scale` and `offset` together on a
    dev run (see `judge_runner.judges.rules.calibrate`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: ScoreMethod = ScoreMethod.WEIGHTED
    scale: float = Field(default=1.0, gt=0.0, le=10.0)
    offset: float = Field(default=0.0, ge=-10.0, le=10.0)


class RuleSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: VerdictSpec = Field(default_factory=VerdictSpec)
    score: ScoreSpec = Field(default_factory=ScoreSpec)
    check: list[CheckSpec]

    @model_validator(mode="after")
    def _unique_ids(self) -> RuleSet:
        ids = [c.id for c in self.check]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate check ids: {', '.join(dupes)}")
        return self

    def enabled(self) -> list[CheckSpec]:
        return [c for c in self.check if c.enabled]

    def by_id(self, check_id: str) -> CheckSpec:
        for c in self.check:
            if c.id == check_id:
                return c
        raise KeyError(check_id)

    def reweighted(self, weights: Mapping[str, float],
                   support_weights: Mapping[str, float]) -> RuleSet:
        """These rules with the `weight` of each check in `weights` and the `support_weight` of
        each check in `support_weights` replaced (check id → value); RulesError naming the ids
        that are not checks of these rules."""
        ids = {c.id for c in self.check}
        unknown = sorted((set(weights) | set(support_weights)) - ids)
        if unknown:
            raise RulesError(f"weights for checks these rules do not have: {', '.join(unknown)}")
        checks = []
        for c in self.check:
            update: dict[str, float] = {}
            if c.id in weights:
                update["weight"] = weights[c.id]
            if c.id in support_weights:
                update["support_weight"] = support_weights[c.id]
            checks.append(c.model_copy(update=update) if update else c)
        return self.model_copy(update={"check": checks})


def load_rules(skill_dir: Path, known_ids: frozenset[str]) -> RuleSet:
    """Read `<skill_dir>/checks.toml`; raise `RulesError` naming the file on any problem."""
    path = skill_dir / CHECKS_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RulesError(f"{path}: not found (a rules JudgeSkill needs {CHECKS_FILE})") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"{path}: cannot read: {exc}") from None
    try:
        rules = RuleSet.model_validate(data)
    except ValidationError as exc:
        raise RulesError(f"{path}: invalid rules: {exc}") from None
    unknown = sorted(c.id for c in rules.check if c.id not in known_ids)
    if unknown:
        raise RulesError(f"{path}: unknown check ids {unknown}; known: {sorted(known_ids)}")
    return rules


def _toml_value(value: ThresholdValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(round(float(value), 6)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return _toml_string(value)
    return "[" + ", ".join(_toml_string(v) for v in value) + "]"


def _toml_string(text: str) -> str:
    # literal strings keep regexes readable; fall back to escaped basic strings when needed
    if "'" not in text and "\n" not in text:
        return f"'{text}'"
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def dump_rules(rules: RuleSet, header: str = "") -> str:
    """The TOML text of `rules`; byte-identical for equal rule sets."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    if lines:
        lines.append("")
    lines.append("[verdict]")
    for key, value in rules.verdict.model_dump().items():
        lines.append(f"{key} = {_toml_value(value)}")
    if rules.score != ScoreSpec():
        lines += ["", "[score]", f"method = {_toml_string(rules.score.method.value)}",
                  f"scale = {_toml_value(float(rules.score.scale))}",
                  f"offset = {_toml_value(float(rules.score.offset))}"]
    for check in rules.check:
        lines += [
            "",
            "[[check]]",
            f"id = {_toml_string(check.id)}",
            f"description = {_toml_string(check.description)}",
            f"evidence = {_toml_string(check.evidence.value)}",
            f"weight = {_toml_value(float(check.weight))}",
            *([f"support_weight = {_toml_value(float(check.support_weight))}"]
              if check.support_weight is not None else []),
            f"task_critical = {_toml_value(check.task_critical)}",
            f"enabled = {_toml_value(check.enabled)}",
        ]
        if check.thresholds:
            lines.append("[check.thresholds]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in sorted(check.thresholds.items())]
    return "\n".join(lines) + "\n"
