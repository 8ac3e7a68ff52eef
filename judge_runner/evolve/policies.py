"""The evolution loop's policies, each a small Protocol with its implementations: when to stop
(`StopCondition`, composable, answering with a `StopReason`) and whether a gated candidate may
replace the incumbent (`Acceptance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from judge_runner.core import Figures
from judge_runner.evolve.state import EvolveState

STOP_FILE = "STOP"


class StopReason(StrEnum):
    STOP_FILE = "stop file found"
    DOLLAR_BUDGET = "dollar budget reached"
    CALL_BUDGET = "model-call budget reached"
    CANDIDATE_CAP = "candidate cap reached"
    ALL_ROUNDS = "all rounds done"


@dataclass(frozen=True)
class Stop:
    reason: StopReason
    detail: str = ""  # the figures behind it, for a reader

    def __str__(self) -> str:
        """The text the state records (`EvolveState.stop_reason`)."""
        return f"{self.reason.value} ({self.detail})" if self.detail else self.reason.value


class StopCondition(Protocol):
    def __call__(self, state: EvolveState, run_dir: Path) -> Stop | None:
        """Why to stop now, or None to go on."""
        ...


def stop_file(state: EvolveState, run_dir: Path) -> Stop | None:
    return Stop(StopReason.STOP_FILE) if (run_dir / STOP_FILE).exists() else None


def dollar_budget(state: EvolveState, run_dir: Path) -> Stop | None:
    budget, spent = state.config.budget_usd, state.spend.total_usd
    if budget is None or spent < budget:
        return None
    return Stop(StopReason.DOLLAR_BUDGET, f"${spent:.4f} of ${budget}")


def call_budget(state: EvolveState, run_dir: Path) -> Stop | None:
    budget, spent = state.config.budget_calls, state.spend.total_calls
    if budget is None or spent < budget:
        return None
    return Stop(StopReason.CALL_BUDGET, f"{spent} of {budget}")


def candidate_cap(state: EvolveState, run_dir: Path) -> Stop | None:
    cap = state.config.max_candidates
    if cap is None or len(state.candidates) < cap:
        return None
    return Stop(StopReason.CANDIDATE_CAP, str(cap))


def all_rounds(state: EvolveState, run_dir: Path) -> Stop | None:
    return Stop(StopReason.ALL_ROUNDS) if len(state.rounds) >= state.config.rounds else None


# Stop spending at once, even in the middle of a round.
HARD_STOPS: tuple[StopCondition, ...] = (stop_file, dollar_budget, call_budget)
# Propose no more candidates; those already proposed are still gated.
NO_NEW_CANDIDATES: tuple[StopCondition, ...] = (candidate_cap, *HARD_STOPS)
# Start no new round.
BEFORE_A_ROUND: tuple[StopCondition, ...] = (all_rounds, *NO_NEW_CANDIDATES)


def first_stop(
    conditions: Sequence[StopCondition], state: EvolveState, run_dir: Path
) -> Stop | None:
    """The first condition that says stop, in the order given."""
    return next((s for c in conditions if (s := c(state, run_dir)) is not None), None)


class Acceptance(Protocol):
    def refusal(self, incumbent: Figures | None, candidate: Figures) -> str | None:
        """Why `candidate` may not replace `incumbent` (None: it may)."""
        ...


def gate_comparison(incumbent: Figures | None, candidate: Figures) -> str:
    """The reason a candidate not promoted records (an incumbent not yet gated has G = 0)."""
    before = incumbent.gate_score if incumbent is not None else 0.0
    return f"gate G {candidate.gate_score:.4f} does not beat incumbent {before:.4f}"


class BeatsIncumbent:
    """A candidate must score a strictly higher gate score G than the incumbent."""

    def refusal(self, incumbent: Figures | None, candidate: Figures) -> str | None:
        before = incumbent.gate_score if incumbent is not None else 0.0
        return None if candidate.gate_score > before else gate_comparison(incumbent, candidate)
