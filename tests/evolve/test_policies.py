"""Stop conditions and the acceptance policy of the evolution loop, one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.core import Figures
from judge_runner.evolve import STOP_FILE, BeatsIncumbent, StateInvariantError, StopReason
from judge_runner.evolve.policies import BEFORE_A_ROUND, HARD_STOPS, first_stop
from judge_runner.evolve.state import (
    CandidateRecord,
    CandidateStatus,
    EvolveConfig,
    EvolveState,
    Spend,
    Strategy,
)


def state(**config: object) -> EvolveState:
    cfg = EvolveConfig.model_validate({
        "dataset": "d", "skill": "s/v1", "judge": "rules", "optimizer": "rules",
        "dev_ids": ["a"], "gate_ids": ["g"], "rounds": 2, "sample_size": 1, "seed": 0,
        **config})
    return EvolveState(config=cfg, incumbent_dir="s/v1", incumbent_hash="h1")


def figures(g: float) -> Figures:
    return Figures(n=4, n_error=0, accuracy=g, balanced_accuracy=g, recall_fail=g,
                   precision_pass=g, gate_score=g)


def test_nothing_stops_a_fresh_run(tmp_path: Path) -> None:
    assert first_stop(BEFORE_A_ROUND, state(), tmp_path) is None


def test_each_stop_names_its_reason(tmp_path: Path) -> None:
    spent = state(budget_usd=1.0, budget_calls=5)
    spent.spend = Spend(judge_usd=0.75, judge_calls=3, optimizer_usd=0.25, optimizer_calls=1)
    stop = first_stop(HARD_STOPS, spent, tmp_path)
    assert stop is not None and stop.reason is StopReason.DOLLAR_BUDGET
    assert str(stop) == "dollar budget reached ($1.0000 of $1.0)"
    (tmp_path / STOP_FILE).touch()  # the stop file comes first
    assert (s := first_stop(HARD_STOPS, spent, tmp_path)) and s.reason is StopReason.STOP_FILE
    done = state(rounds=0)
    assert (s := first_stop(BEFORE_A_ROUND, done, tmp_path)) and str(s) == "all rounds done"


def test_acceptance_needs_a_strictly_higher_gate_score() -> None:
    policy = BeatsIncumbent()
    assert policy.refusal(figures(0.5), figures(0.6)) is None
    assert policy.refusal(None, figures(0.1)) is None
    assert policy.refusal(figures(0.5), figures(0.5)) == \
        "gate G 0.5000 does not beat incumbent 0.5000"


def test_a_gated_candidate_without_figures_breaks_the_state() -> None:
    s = state()
    s.candidates.append(CandidateRecord(id="r0-x", round=0, strategy=Strategy.HARDEN,
                                        parent_hash="h1", skill_dir="c", skill_hash="h2",
                                        status=CandidateStatus.SCORED))
    with pytest.raises(StateInvariantError, match="without gate figures"):
        s.check()
    with pytest.raises(StateInvariantError, match="no gate figures"):
        s.candidates[0].figures()
