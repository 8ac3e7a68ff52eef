"""All state of one evolution run, in one serializable object that checks its own invariants.

The loop persists this object after every step (atomic replace), so `kill -9` at any moment
leaves a state from which a re-run continues without repeating paid work: judge results are
cached separately per (skill hash, case), and every step below is idempotent given the state.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Figures
from judge_runner.sandbox import SandboxKind

STATE_FILE = "state.json"


class Strategy(StrEnum):
    """The three reflection goals a rewrite can pursue."""

    HARDEN = "false_pass_hardening"  # judged pass, truly fail
    RELAX = "false_fail_relaxation"  # judged fail, truly pass
    CALIBRATE = "balanced_calibration"  # both kinds of error together


class OptimizerKind(StrEnum):
    """What proposes the rewrites: a model, or the rules judge's own edit search."""

    MODEL = "model"
    RULES = "rules"


class Phase(StrEnum):
    """Where a round stands; each phase's output is in the state before the phase advances."""

    STARTED = "started"  # dev sample drawn
    BRIEFED = "briefed"  # sample judged, misjudged cases bundled and compressed into briefs
    PROPOSED = "proposed"  # every strategy with a brief has a candidate (or a failure)
    DONE = "done"  # every candidate gated and the promotion decision written


class CandidateStatus(StrEnum):
    PROPOSED = "proposed"
    INVALID = "invalid"  # an answer that is no usable skill, or failed validation; never gated
    FAILED = "failed"  # no answer to judge (e.g. the optimizer's model call failed)
    SCORED = "scored"  # gated, decision pending
    PROMOTED = "promoted"
    REJECTED = "rejected"


class Spend(BaseModel):
    """Derived from durable records (stored verdicts, the optimizer transcript) at every save."""

    model_config = ConfigDict(extra="forbid")

    judge_usd: float = 0.0
    judge_calls: int = 0
    optimizer_usd: float = 0.0
    optimizer_calls: int = 0

    @property
    def total_usd(self) -> float:
        return self.judge_usd + self.optimizer_usd

    @property
    def total_calls(self) -> int:
        return self.judge_calls + self.optimizer_calls


class EvolveConfig(BaseModel):
    """Everything that defines an evolution run; a resumed run must present the same config."""

    model_config = ConfigDict(extra="forbid")

    dataset: str
    skill: str  # the starting JudgeSkill directory
    judge: str
    judge_model: str | None = None
    optimizer: OptimizerKind
    optimizer_model: str | None = None
    base_url: str | None = None
    sandbox: SandboxKind = SandboxKind.AUTO
    dev_ids: list[str]
    gate_ids: list[str]
    rounds: int
    sample_size: int
    seed: int
    budget_usd: float | None = None
    budget_calls: int | None = None
    max_candidates: int | None = None
    require_paired_test: bool = False
    paired_alpha: float = 0.05
    brief_token_bound: int = 6000
    optimizer_max_tokens: int = 16_000  # the model optimizer's answer cap
    concurrency: int = 4


class StateInvariantError(RuntimeError):
    pass


class CandidateRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # "r{round}-{strategy}"
    round: int
    strategy: Strategy
    parent_hash: str
    skill_dir: str | None = None
    skill_hash: str | None = None
    status: CandidateStatus
    reason: str | None = None
    rationale: str | None = None  # the optimizer's own account of the rewrite
    brief_hashes: dict[str, str] = Field(default_factory=dict)
    gate: Figures | None = None
    paired_p: float | None = None
    promoted_as: str | None = None  # the judgeskills/vK directory written on promotion

    def written(self) -> tuple[Path, str]:
        """The candidate's skill directory and content hash; StateInvariantError when it has
        none (only a candidate that failed or was invalid may lack them)."""
        if self.skill_dir is None or self.skill_hash is None:
            raise StateInvariantError(f"candidate {self.id} ({self.status.value}) has no skill")
        return Path(self.skill_dir), self.skill_hash

    def figures(self) -> Figures:
        """The candidate's gate figures; StateInvariantError when it was never gated."""
        if self.gate is None:
            raise StateInvariantError(f"candidate {self.id} ({self.status.value}) has no gate "
                                      "figures")
        return self.gate


class RoundRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int
    phase: Phase
    incumbent_hash: str
    sample: list[str]
    misjudged: dict[Strategy, list[str]] = Field(default_factory=dict)
    brief_hashes: dict[str, str] = Field(default_factory=dict)  # strategy/shared -> sha256
    candidates: list[str] = Field(default_factory=list)


class EvolveState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_version: int = 1
    config: EvolveConfig
    incumbent_dir: str
    incumbent_hash: str
    incumbent_gate: Figures | None = None
    initial_gate: Figures | None = None  # the starting skill's gate figures
    rounds: list[RoundRecord] = Field(default_factory=list)
    candidates: list[CandidateRecord] = Field(default_factory=list)
    spend: Spend = Field(default_factory=Spend)
    stop_reason: str | None = None

    def candidate(self, candidate_id: str) -> CandidateRecord:
        for c in self.candidates:
            if c.id == candidate_id:
                return c
        raise KeyError(candidate_id)

    def promotions(self) -> list[CandidateRecord]:
        return [c for c in self.candidates if c.status is CandidateStatus.PROMOTED]

    def check(self) -> None:
        """Raise StateInvariantError when the state is inconsistent (corrupt or hand-edited)."""
        problems: list[str] = []
        if [r.index for r in self.rounds] != list(range(len(self.rounds))):
            problems.append("round indices are not 0..n-1")
        if any(r.phase is not Phase.DONE for r in self.rounds[:-1]):
            problems.append("a round other than the last is unfinished")
        ids = [c.id for c in self.candidates]
        if len(ids) != len(set(ids)):
            problems.append("duplicate candidate ids")
        promoted = [c.promoted_as for c in self.promotions()]
        if None in promoted or len(promoted) != len(set(promoted)):
            problems.append("a promotion without a unique written version")
        per_round = [sum(1 for c in self.promotions() if c.round == r.index) for r in self.rounds]
        if any(n > 1 for n in per_round):
            problems.append("more than one promotion in a round")
        last = self.promotions()[-1] if self.promotions() else None
        if last is not None and last.skill_hash != self.incumbent_hash:
            problems.append("incumbent is not the last promoted candidate")
        gate_set = set(self.config.gate_ids)
        if any(gate_set & set(r.sample) for r in self.rounds):
            problems.append("a dev sample contains gate cases")
        written = (CandidateStatus.PROPOSED, CandidateStatus.SCORED, CandidateStatus.PROMOTED)
        if any(c.status in written and not (c.skill_dir and c.skill_hash)
               for c in self.candidates):
            problems.append("a proposed, scored or promoted candidate without a written skill")
        gated = (CandidateStatus.SCORED, CandidateStatus.PROMOTED)
        if any(c.status in gated and c.gate is None for c in self.candidates):
            problems.append("a scored or promoted candidate without gate figures")
        if self.spend.judge_usd < 0 or self.spend.optimizer_usd < 0:
            problems.append("negative spend")
        if problems:
            raise StateInvariantError("; ".join(problems))

    def save(self, run_dir: Path) -> None:
        self.check()
        path = run_dir / STATE_FILE
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(self.model_dump_json(indent=2) + "\n", encoding="utf-8")
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        tmp.replace(path)

    @classmethod
    def load(cls, run_dir: Path) -> EvolveState | None:
        path = run_dir / STATE_FILE
        if not path.is_file():
            return None
        state = cls.model_validate_json(path.read_text(encoding="utf-8"))
        state.check()
        return state
