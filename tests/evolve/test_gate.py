"""Gate scoring rules: not deciding is judging wrongly; promotions never overwrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Label
from judge_runner.evolve.bundles import JudgedCase
from judge_runner.evolve.loop import EvolveError, _install_version, gate_figures
from judge_runner.judges import Decision, Verdict
from judge_runner.skills.model import hash_directory


def judged(decisions: list[tuple[Decision, Label]]) -> list[JudgedCase]:
    return [
        JudgedCase(
            case_id=f"c{i}",
            label=label,
            products_dir=Path("."),
            verdict=Verdict(case_id=f"c{i}", judge="t", decision=decision),
        )
        for i, (decision, label) in enumerate(decisions)
    ]


def test_errors_on_the_gate_count_as_wrong_decisions() -> None:
    honest = judged(
        [
            (Decision.FAIL, Label.FAIL),
            (Decision.PASS, Label.FAIL),
            (Decision.PASS, Label.PASS),
            (Decision.FAIL, Label.FAIL),
        ]
    )
    # The same judge, but it errors on the one fail case it got wrong: leaving errors out would
    # make it look perfect.
    evasive = judged(
        [
            (Decision.FAIL, Label.FAIL),
            (Decision.ERROR, Label.FAIL),
            (Decision.PASS, Label.PASS),
            (Decision.FAIL, Label.FAIL),
        ]
    )
    a, b = gate_figures(honest, {}), gate_figures(evasive, {})
    assert b.gate_score == pytest.approx(a.gate_score)
    assert b.accuracy == pytest.approx(0.75) and b.n_error == 1
    # By hand: tp 1, fp 1, tn 2, fn 0 → BalAcc (1 + 2/3)/2, Recall_fail 2/3, Precision_pass 1/2.
    assert b.gate_score == pytest.approx(0.5 * (5 / 6) + 0.3 * (2 / 3) + 0.2 * 0.5)


def test_promotion_never_overwrites_another_version(tmp_path: Path) -> None:
    source = tmp_path / "cand"
    source.mkdir()
    (source / "SKILL.md").write_text("candidate\n")
    target = tmp_path / "skills" / "v2"
    target.parent.mkdir()
    _install_version(source, hash_directory(source), target, tmp_path / "run")
    assert (target / "SKILL.md").read_text() == "candidate\n"
    _install_version(source, hash_directory(source), target, tmp_path / "run")  # resumed: kept
    (target / "SKILL.md").write_text("edited by hand\n")
    with pytest.raises(EvolveError, match="not overwriting"):
        _install_version(source, hash_directory(source), target, tmp_path / "run")
    assert (target / "SKILL.md").read_text() == "edited by hand\n"
