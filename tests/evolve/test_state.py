from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.evolve.state import (
    CandidateRecord,
    CandidateStatus,
    EvolveConfig,
    EvolveState,
    Phase,
    RoundRecord,
    StateInvariantError,
    Strategy,
)


def state() -> EvolveState:
    config = EvolveConfig(
        dataset="d",
        skill="s/v1",
        judge="rules",
        optimizer="rules",
        dev_ids=["a", "b", "c"],
        gate_ids=["g"],
        rounds=2,
        sample_size=2,
        seed=0,
    )
    return EvolveState(config=config, incumbent_dir="s/v1", incumbent_hash="h1")


def candidate(
    cid: str, status: CandidateStatus, promoted_as: str | None = None, skill_hash: str = "h2"
) -> CandidateRecord:
    return CandidateRecord(
        id=cid,
        round=0,
        strategy=Strategy.HARDEN,
        parent_hash="h1",
        status=status,
        promoted_as=promoted_as,
        skill_hash=skill_hash,
    )


def test_round_trip(tmp_path: Path) -> None:
    s = state()
    s.rounds.append(
        RoundRecord(index=0, phase=Phase.STARTED, incumbent_hash="h1", sample=["a", "b"])
    )
    s.save(tmp_path)
    assert EvolveState.load(tmp_path) == s


@pytest.mark.parametrize(
    "breakage",
    ["gate_in_sample", "duplicate", "two_promotions", "stale_incumbent", "unfinished_round"],
)
def test_invariants(breakage: str) -> None:
    s = state()
    s.rounds.append(RoundRecord(index=0, phase=Phase.DONE, incumbent_hash="h1", sample=["a"]))
    if breakage == "gate_in_sample":
        s.rounds[0].sample.append("g")
    elif breakage == "duplicate":
        s.candidates += [candidate("x", CandidateStatus.REJECTED)] * 2
    elif breakage == "two_promotions":
        s.candidates += [
            candidate("x", CandidateStatus.PROMOTED, "v2"),
            candidate("y", CandidateStatus.PROMOTED, "v3"),
        ]
        s.incumbent_hash = "h2"
    elif breakage == "stale_incumbent":
        s.candidates.append(candidate("x", CandidateStatus.PROMOTED, "v2"))
    elif breakage == "unfinished_round":
        s.rounds[0].phase = Phase.BRIEFED
        s.rounds.append(
            RoundRecord(index=1, phase=Phase.STARTED, incumbent_hash="h1", sample=["b"])
        )
    with pytest.raises(StateInvariantError):
        s.check()
