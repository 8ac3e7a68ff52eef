"""One group of tests per check, on crafted cases: support, refutation and not-applicable."""

from __future__ import annotations

from pathlib import Path

from judge_runner.cases import CasePackage, TerminationStatus
from judge_runner.core import Decision, Outcome
from judge_runner.judges.products import read_log
from judge_runner.judges.rules.address_checks import GUARD
from judge_runner.judges.rules.checks import CHECKS, Finding, known_checks
from judge_runner.judges.rules.evidence import CaseView
from judge_runner.judges.rules.judge import RulesJudge, default_skill_dir
from judge_runner.judges.rules.spec import load_rules
from tests.casebuilder import (
    GOOD_RUN,
    bash,
    build_case,
    msg,
    point_artifact_at,
    read,
    skill,
    write,
)
from tests.injection import ATTACKS

RULES = load_rules(default_skill_dir(), known_checks())


def run(case: CasePackage, check_id: str) -> Finding | None:
    return CHECKS[check_id].run(CaseView(case), RULES.by_id(check_id))


def found(case: CasePackage, check_id: str, expected: Outcome) -> Finding:
    """The check's finding on `case`, asserted to be there with the `expected` outcome."""
    finding = run(case, check_id)
    assert finding is not None and finding.outcome is expected
    return finding


def outcome(case: CasePackage, check_id: str) -> Outcome | None:
    finding = run(case, check_id)
    return None if finding is None else finding.outcome


def test_every_bundled_check_has_an_implementation_and_back() -> None:
    # the judge-address guard runs on every case without being a skill's rule
    assert {c.id for c in RULES.check} | {GUARD.id} == set(CHECKS)


# run_terminated

def test_run_terminated_supports_a_completed_run(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "run_terminated") is Outcome.SUPPORTS


def test_run_terminated_refutes_a_run_without_result(tmp_path: Path) -> None:
    case = build_case(tmp_path, status=TerminationStatus.NO_RESULT)
    finding = found(case, "run_terminated", Outcome.REFUTES)
    assert finding.evidence[0].ref == str(len(GOOD_RUN) - 1)  # rests on the last step


def test_run_terminated_refutes_an_error_result(tmp_path: Path) -> None:
    case = build_case(tmp_path, status=TerminationStatus.ERROR, subtype="error_max_turns")
    finding = found(case, "run_terminated", Outcome.REFUTES)
    assert "error_max_turns" in finding.text


# no_deferral

def test_no_deferral_refutes_a_request_for_credentials(tmp_path: Path) -> None:
    steps = [*GOOD_RUN[:-1], msg("Could you provide a GitHub token so I can continue?")]
    finding = found(build_case(tmp_path, steps), "no_deferral", Outcome.REFUTES)
    assert finding.evidence[0].ref == str(len(steps) - 1)


def test_no_deferral_is_inconclusive_for_an_ordinary_report(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "no_deferral") is Outcome.INCONCLUSIVE


def test_no_deferral_does_not_apply_without_a_final_message(tmp_path: Path) -> None:
    case = build_case(tmp_path, [bash("ls", "a")], status=TerminationStatus.NO_RESULT)
    assert outcome(case, "no_deferral") is None


# required_outputs_present

def test_required_outputs_supported_by_a_write_step(tmp_path: Path) -> None:
    finding = found(build_case(tmp_path), "required_outputs_present", Outcome.SUPPORTS)
    assert finding.evidence[0].kind == "step" and finding.evidence[0].ref == "3"


def test_required_outputs_supported_by_a_stored_artifact(tmp_path: Path) -> None:
    case = build_case(tmp_path, artifacts={"/root/out.json": b'{"total": 6}'})
    finding = found(case, "required_outputs_present", Outcome.SUPPORTS)
    assert (finding.evidence[0].kind, finding.evidence[0].ref) == ("artifact", "root/out.json")


def test_required_outputs_refuted_when_never_written(tmp_path: Path) -> None:
    steps = [bash("python3 analyse.py", "total 6"), msg("The total is 6.")]
    finding = found(build_case(tmp_path, steps), "required_outputs_present", Outcome.REFUTES)
    assert "/root/out.json" in finding.text


def test_required_outputs_counts_a_script_that_writes_the_file(tmp_path: Path) -> None:
    script = "import json\njson.dump({'total': 6}, open('/root/out.json', 'w'))\n"
    steps = [write("/root/job.py", script), bash("python3 /root/job.py", "done"), msg("Done.")]
    finding = found(build_case(tmp_path, steps), "required_outputs_present", Outcome.SUPPORTS)
    assert finding.evidence[0].ref == "1"


def test_required_outputs_ignores_a_failed_write(tmp_path: Path) -> None:
    steps = [bash("echo 6 > /root/out.json", "Permission denied", exit_code=1), msg("Done.")]
    assert outcome(build_case(tmp_path, steps), "required_outputs_present") is Outcome.REFUTES


def test_required_outputs_not_applicable_without_named_outputs(tmp_path: Path) -> None:
    case = build_case(tmp_path, instruction="Explain what the data in /root/in.csv shows.\n")
    assert outcome(case, "required_outputs_present") is None


# outputs_well_formed

def test_outputs_well_formed_supports_valid_json(tmp_path: Path) -> None:
    case = build_case(tmp_path, artifacts={"/root/out.json": b'{"total": 6}'})
    assert outcome(case, "outputs_well_formed") is Outcome.SUPPORTS


def test_outputs_well_formed_refutes_broken_json(tmp_path: Path) -> None:
    case = build_case(tmp_path, artifacts={"/root/out.json": b'{"total": '})
    finding = found(case, "outputs_well_formed", Outcome.REFUTES)
    assert finding.evidence[0].ref == "root/out.json" and "invalid JSON" in finding.text


def test_outputs_well_formed_not_applicable_without_stored_outputs(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "outputs_well_formed") is None


# errors_resolved

def test_errors_resolved_supports_a_fixed_error(tmp_path: Path) -> None:
    steps = [bash("python3 a.py", "Traceback (most recent call last):\nKeyError: 'x'", 1),
             bash("python3 a.py", "ok"), msg("Fixed.")]
    assert outcome(build_case(tmp_path, steps), "errors_resolved") is Outcome.SUPPORTS


def test_errors_resolved_refutes_a_final_failure(tmp_path: Path) -> None:
    steps = [bash("python3 a.py", "ok"), bash("gh auth status", "You are not logged in", 1),
             msg("I need access.")]
    finding = found(build_case(tmp_path, steps), "errors_resolved", Outcome.REFUTES)
    assert finding.evidence[0].ref == "1"


def test_errors_resolved_sees_a_traceback_behind_exit_code_zero(tmp_path: Path) -> None:
    steps = [bash("python3 a.py 2>&1 | tail -3",
                  "Traceback (most recent call last):\n  File x\nValueError: bad", 0), msg("Hm.")]
    assert outcome(build_case(tmp_path, steps), "errors_resolved") is Outcome.REFUTES


def test_errors_resolved_not_applicable_without_commands(tmp_path: Path) -> None:
    steps = [write("/root/out.json", "{}"), msg("Done.")]
    assert outcome(build_case(tmp_path, steps), "errors_resolved") is None


# output_checked

def test_output_checked_supports_a_read_back(tmp_path: Path) -> None:
    finding = found(build_case(tmp_path), "output_checked", Outcome.SUPPORTS)
    assert finding.evidence[0].ref == "4"


def test_output_checked_refutes_an_unread_output(tmp_path: Path) -> None:
    steps = [write("/root/out.json", "{}"), msg("Saved to /root/out.json.")]
    assert outcome(build_case(tmp_path, steps), "output_checked") is Outcome.REFUTES


def test_output_checked_needs_the_check_after_the_last_write(tmp_path: Path) -> None:
    steps = [write("/root/out.json", "{}"), read("/root/out.json", "{}"),
             write("/root/out.json", '{"total": 6}'), msg("Saved.")]
    finding = found(build_case(tmp_path, steps), "output_checked", Outcome.REFUTES)
    assert finding.evidence[0].ref == "2"


# claims_backed

def test_claims_backed_supports_a_claim_with_a_write(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "claims_backed") is Outcome.SUPPORTS


def test_claims_backed_refutes_a_saved_claim_without_write(tmp_path: Path) -> None:
    steps = [bash("python3 a.py", "6"), msg("The report has been saved to `/root/summary.csv`.")]
    finding = found(build_case(tmp_path, steps), "claims_backed", Outcome.REFUTES)
    assert "/root/summary.csv" in finding.text


def test_claims_backed_refutes_a_test_claim_without_test_output(tmp_path: Path) -> None:
    steps = [write("/root/out.json", "{}"), msg("All tests pass and the file is in place.")]
    assert outcome(build_case(tmp_path, steps), "claims_backed") is Outcome.REFUTES


def test_claims_backed_accepts_a_test_claim_with_test_output(tmp_path: Path) -> None:
    steps = [bash("pytest -q", "5 passed in 0.1s"), msg("All tests pass.")]
    assert outcome(build_case(tmp_path, steps), "claims_backed") is Outcome.SUPPORTS


def test_claims_backed_not_applicable_without_claims(tmp_path: Path) -> None:
    steps = [bash("python3 a.py", "6"), msg("The answer is 6.")]
    assert outcome(build_case(tmp_path, steps), "claims_backed") is None


# skills_consulted

def test_skills_consulted_supports_a_skill_use(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "skills_consulted") is Outcome.SUPPORTS


def test_skills_consulted_accepts_reading_a_skill_file(tmp_path: Path) -> None:
    steps = [read("/root/.claude/skills/tables/SKILL.md", "# tables"), msg("Done.")]
    assert outcome(build_case(tmp_path, steps), "skills_consulted") is Outcome.SUPPORTS


def test_skills_consulted_refutes_ignored_skills(tmp_path: Path) -> None:
    case = build_case(tmp_path, [bash("ls", "x"), msg("Done.")])
    finding = found(case, "skills_consulted", Outcome.REFUTES)
    assert (finding.evidence[0].kind, finding.evidence[0].ref) == ("skill", "tables")


def test_skills_consulted_not_applicable_without_skills(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path, skills={}), "skills_consulted") is None


# skill_procedure_followed

def test_skill_procedure_followed_supports_running_the_skill_script(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path), "skill_procedure_followed") is Outcome.SUPPORTS


def test_skill_procedure_followed_refutes_skipping_the_script(tmp_path: Path) -> None:
    steps = [skill("tables", "Always run `recalc.py` after editing."), bash("python3 mine.py"),
             msg("Done.")]
    finding = found(build_case(tmp_path, steps), "skill_procedure_followed", Outcome.REFUTES)
    assert finding.evidence[0].ref == "0"


def test_skill_procedure_followed_not_applicable_for_skills_without_scripts(
        tmp_path: Path) -> None:
    steps = [skill("tables", "Add the column by hand."), bash("python3 mine.py"), msg("Done.")]
    assert outcome(build_case(tmp_path, steps), "skill_procedure_followed") is None


# error_ratio

def test_error_ratio_supports_few_failures(tmp_path: Path) -> None:
    steps = [bash("head /root/input.csv", "a\n1", 1), *GOOD_RUN]  # 1 failure in 4 calls
    finding = found(build_case(tmp_path, steps), "error_ratio", Outcome.SUPPORTS)
    assert "1/4" in finding.text


def test_error_ratio_refutes_many_failures(tmp_path: Path) -> None:
    steps = [bash(f"try {i}", "boom", exit_code=1) for i in range(3)] + [bash("ok", "fine"),
                                                                          msg("Done.")]
    finding = found(build_case(tmp_path, steps), "error_ratio", Outcome.REFUTES)
    assert "3/4" in finding.text


def test_error_ratio_not_applicable_to_short_runs(tmp_path: Path) -> None:
    assert outcome(build_case(tmp_path, [bash("x", "y", 1), msg("Done.")]), "error_ratio") is None


# no_substitute_data

def test_no_substitute_data_refutes_synthetic_data(tmp_path: Path) -> None:
    steps = [msg("The API is unreachable, so I will use synthetic data instead."),
             *GOOD_RUN]
    finding = found(build_case(tmp_path, steps), "no_substitute_data", Outcome.REFUTES)
    assert finding.evidence[0].quote == "synthetic data"


def test_no_substitute_data_ignores_template_placeholders(tmp_path: Path) -> None:
    steps = [msg("All placeholders in the template were replaced."), *GOOD_RUN]
    assert outcome(build_case(tmp_path, steps), "no_substitute_data") is Outcome.INCONCLUSIVE


def test_outputs_well_formed_does_not_read_outside_artifacts(tmp_path: Path) -> None:
    case = build_case(tmp_path, artifacts={"/root/out.json": b'{"total": 6}'})
    (tmp_path / "labels.jsonl").write_text('{"total": 6}')
    point_artifact_at(case.root, "../../../labels.jsonl")
    fresh = CasePackage(case.root)
    assert run(fresh, "outputs_well_formed") is None  # nothing stored that may be read
    finding = run(fresh, "required_outputs_present")
    assert finding is None or all(ref.kind != "artifact" for ref in finding.evidence)


# no_judge_address (the guard)

def test_text_addressed_to_the_judge_fails_the_run_wherever_the_agent_wrote_it(
    tmp_path: Path,
) -> None:
    for i, attack in enumerate(ATTACKS):
        case = build_case(tmp_path / attack.name, case_id=f"c{i}")
        attack.apply(case.root)
        verdict = RulesJudge(default_skill_dir()).judge(CasePackage(case.root),
                                                        tmp_path / f"out{i}")
        guard = [i for i in read_log(tmp_path / f"out{i}") if i.check == GUARD.id]
        assert [g.outcome for g in guard] == [Outcome.REFUTES], attack.name
        assert verdict.decision is Decision.FAIL, attack.name


def test_an_ordinary_run_is_not_taken_for_an_attack(tmp_path: Path) -> None:
    """Mentions of tests, verifiers and judging that address no one stay inconclusive."""
    steps = [msg("The verifier script checks the output; I will judge the result by its tests."),
             bash("pytest -q", "4 passed in 0.2s")]
    case = build_case(tmp_path, steps, final_message="All 4 tests passed; the judge_scores "
                      "column is written. Decision: keep the pass-through filter.")
    finding = CHECKS[GUARD.id].run(CaseView(case), GUARD)
    assert finding is not None and finding.outcome is Outcome.INCONCLUSIVE, finding
