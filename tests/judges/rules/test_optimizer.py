"""The rules optimizer: re-scoring from findings, edits that fix misjudged dev cases, output."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Label
from judge_runner.core import Decision, Outcome
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.address_checks import GUARD
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.optimizer import (
    DevResult,
    decide,
    dev_results_from_run,
    objective,
    propose,
    recombine,
)
from judge_runner.judges.rules.spec import CHECKS_FILE, load_rules
from tests.casebuilder import GOOD_RUN, build_case
from tests.conftest import REPO

S, R = Outcome.SUPPORTS, Outcome.REFUTES

V1 = REPO / "judgeskills" / "v1"  # the optimizer's tests reason in the weighted formula


def dev_set() -> list[DevResult]:
    """Failures the bundled rules pass: only the (non-critical) error_ratio check refutes them."""
    good = {"run_terminated": S, "required_outputs_present": S, "error_ratio": S}
    bad = {"run_terminated": S, "required_outputs_present": S, "error_ratio": R,
           "skills_consulted": S}
    return ([DevResult(case_id=f"p{i}", label=Label.PASS, findings=good) for i in range(4)]
            + [DevResult(case_id=f"f{i}", label=Label.FAIL, findings=bad) for i in range(4)])


def test_decide_matches_the_judge_on_a_real_log(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data")
    judge = RulesJudge(V1)
    verdict = judge.judge(case, tmp_path / "run" / case.id)
    [result] = dev_results_from_run(tmp_path / "run", {case.id: Label.PASS})
    decision, score = decide(judge.rules, result)
    assert decision is verdict.decision and round(score, 6) == verdict.score


def test_recombine_weighs_the_judge_address_guard_as_the_judge_does() -> None:
    rules = load_rules(REPO / "judgeskills" / "v2", known_checks())
    good = {"run_terminated": S, "last_test_passed": S, "skills_consulted": S}
    assert recombine(rules, good, allow_abstain=False).decision is Decision.PASS
    attacked = recombine(rules, {**good, GUARD.id: R}, allow_abstain=False)
    assert attacked.critical and attacked.decision is Decision.FAIL


def test_propose_fixes_false_passes_and_writes_a_candidate(tmp_path: Path) -> None:
    parent = V1
    rules = load_rules(parent, known_checks())
    results = dev_set()
    assert all(decide(rules, r)[0] is Decision.PASS for r in results)  # the misjudgement
    out = propose(parent, results, tmp_path / "v2", seed=3)
    candidate = load_rules(out, known_checks())
    assert objective(candidate, results) > objective(rules, results)
    assert all((decide(candidate, r)[0] is Decision.PASS) == (r.label is Label.PASS)
               for r in results)
    text = (out / CHECKS_FILE).read_text()
    assert "seed 3" in text and "Edits: " in text and "Edits: none" not in text
    assert (out / "SKILL.md").is_file() or not (parent / "SKILL.md").is_file()


def test_propose_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    a = propose(V1, dev_set(), tmp_path / "a", seed=7)
    b = propose(V1, list(reversed(dev_set())), tmp_path / "b", seed=7)
    assert (a / CHECKS_FILE).read_bytes() == (b / CHECKS_FILE).read_bytes()


def test_propose_keeps_rules_when_nothing_is_misjudged(tmp_path: Path) -> None:
    results = dev_set()[:4]
    out = propose(V1, results, tmp_path / "same", seed=0)
    assert load_rules(out, known_checks()) == load_rules(V1, known_checks())
    assert "Edits: none" in (out / CHECKS_FILE).read_text()


def test_propose_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError):
        propose(V1, dev_set(), tmp_path / "taken", seed=0)


def test_error_verdicts_are_not_dev_results(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data", GOOD_RUN)
    (case.root / "case.json").write_text("{}")
    RulesJudge(V1).judge(case, tmp_path / "run" / "case-1")
    assert dev_results_from_run(tmp_path / "run", {"case-1": Label.PASS}) == []
