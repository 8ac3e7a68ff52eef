"""The outcome checks (last test run, admitted gaps, substitutes, degenerate values, typed
outputs) on crafted cases: support, refutation and not-applicable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judge_runner.cases import CasePackage, Step
from judge_runner.judges import Outcome
from judge_runner.judges.rules import outcome_checks
from judge_runner.judges.rules.checks import CHECKS, known_checks
from judge_runner.judges.rules.evidence import CaseView
from judge_runner.judges.rules.spec import load_rules
from tests.casebuilder import GOOD_RUN, bash, build_case, msg, read, write
from tests.conftest import REPO

RULES = load_rules(REPO / "judgeskills" / "v2", known_checks())
CHECK_CODE = [Path(outcome_checks.__file__), Path(outcome_checks.__file__).with_name("checks.py"),
              Path(outcome_checks.__file__).with_name("evidence.py")]
SKILL_FILES = [REPO / "judgeskills" / v / "checks.toml" for v in ("v1", "v2")]
# ordinary words that task names happen to contain and checks use in their own sense
ORDINARY = frozenset({"assistant", "position", "information", "formula"})


def outcome(case: CasePackage, check_id: str) -> Outcome | None:
    finding = CHECKS[check_id].run(CaseView(case), RULES.by_id(check_id))
    return None if finding is None else finding.outcome


def with_steps(tmp_path: Path, *steps: Step, final: str = "Done.") -> CasePackage:
    return build_case(tmp_path / "d", [*GOOD_RUN[:-1], *steps, msg(final)])


def test_last_test_run_decides_not_earlier_ones(tmp_path: Path) -> None:
    fixed = with_steps(tmp_path / "a", bash("pytest -q", "1 failed, 3 passed", exit_code=1),
                       bash("pytest -q", "4 passed in 0.2s"))
    assert outcome(fixed, "last_test_passed") is Outcome.SUPPORTS
    broken = with_steps(tmp_path / "b", bash("pytest -q", "4 passed"),
                        bash("pytest -q | tail -3", "FAILED test_x.py::test_total - assert 5 == 6"))
    assert outcome(broken, "last_test_passed") is Outcome.REFUTES  # exit code hidden by tail
    verify = with_steps(tmp_path / "c", bash("python3 verify_output.py", "✗ total mismatch"))
    assert outcome(verify, "last_test_passed") is Outcome.REFUTES
    assert outcome(build_case(tmp_path / "d"), "last_test_passed") is None  # no test run
    install = with_steps(tmp_path / "e", bash("pip install pytest", "Successfully installed"),
                         bash("cat test_total.py", "def test_total(): ..."))
    assert outcome(install, "last_test_passed") is None  # installing or reading is no test


def test_a_report_that_admits_gaps_is_refuted(tmp_path: Path) -> None:
    admits = with_steps(tmp_path / "a", final="Saved `/root/out.json`. Since the rates were "
                        "unavailable, I assumed a rate of 5%.")
    assert outcome(admits, "report_discloses_gaps") is Outcome.REFUTES
    clean = build_case(tmp_path / "b")
    assert outcome(clean, "report_discloses_gaps") is Outcome.INCONCLUSIVE
    physics = with_steps(tmp_path / "c", final="Saved the partial pressures to `/root/out.json`.")
    assert outcome(physics, "report_discloses_gaps") is Outcome.INCONCLUSIVE


def test_an_announced_substitute_after_an_obstacle_is_refuted(tmp_path: Path) -> None:
    swap = with_steps(tmp_path / "a", msg("The service is not returning data for this "
                                          "parameter. I'll estimate the thresholds instead."))
    assert outcome(swap, "obstacle_workaround") is Outcome.REFUTES
    fix = with_steps(tmp_path / "b", msg("The module is missing; let me install it."))
    assert outcome(fix, "obstacle_workaround") is Outcome.INCONCLUSIVE


def test_degenerate_values_in_what_the_agent_saw_of_its_output(tmp_path: Path) -> None:
    nan = with_steps(tmp_path / "a", bash("cat /root/out.json", '{"total": NaN}'))
    assert outcome(nan, "values_sane") is Outcome.REFUTES
    assert outcome(build_case(tmp_path / "b"), "values_sane") is Outcome.SUPPORTS
    empty = with_steps(tmp_path / "c", final="Found 0 records, so the total is 0.")
    assert outcome(empty, "values_sane") is Outcome.REFUTES
    clean = with_steps(tmp_path / "e", final="The recalculation found 0 errors.")
    assert outcome(clean, "values_sane") is Outcome.SUPPORTS  # no errors is not an empty result


def test_typed_data_outputs_are_refuted_computed_ones_supported(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path / "a"), "outputs_computed") is Outcome.REFUTES
    computed = [*GOOD_RUN[:3], bash("python3 total.py > /root/out.json", ""),
                read("/root/out.json", '{"total": 6}'), msg("Saved `/root/out.json`.")]
    assert outcome(build_case(tmp_path / "b", computed), "outputs_computed") is Outcome.SUPPORTS
    code = build_case(tmp_path / "c", [write("/root/solve.py", "print(1)"), msg("Done.")],
                      instruction="Write the solver to `/root/solve.py`.\n")
    assert outcome(code, "outputs_computed") is None  # code files are typed by nature


def _task_names(shared_root: Path) -> set[str]:
    names = set()
    categories = shared_root / "data" / "skillsbench-tasks" / "categories.tsv"
    for line in categories.read_text("utf-8").splitlines()[1:]:
        if line.strip():
            names.add(line.split("\t")[0].strip())
    manifest = json.loads((shared_root / "data" / "skillsbench-real" / "MANIFEST.json")
                          .read_text("utf-8"))
    names |= {entry["task"] for entry in manifest}
    return names


@pytest.mark.shared
def test_no_check_names_a_task_or_a_benchmark(shared_categories: Path, real_data: Path) -> None:
    names = _task_names(shared_categories.parents[2])
    assert len(names) > 50
    # task names and their distinctive parts (e.g. "egomotion", "powerlifting")
    words = {w for n in names for w in n.split("-") if len(w) >= 7} - ORDINARY
    texts = {p: p.read_text("utf-8").lower() for p in [*CHECK_CODE, *SKILL_FILES]}
    for path, text in texts.items():
        found = sorted(n for n in names if n.lower() in text)
        assert found == [], f"{path} names tasks {found}"
        tokens = set(re.findall(r"[a-z0-9]+", text))
        assert sorted(words & tokens) == [], f"{path} uses task words"
        assert "skillsbench" not in text and "skilltv" not in text, f"{path} names a benchmark"
