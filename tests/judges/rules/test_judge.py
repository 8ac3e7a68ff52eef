"""The judge end to end on crafted cases: products, determinism, citations, errors, factory."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from judge_runner.cases import TerminationStatus
from judge_runner.core import SAME_AS_FINAL, Decision, Outcome
from judge_runner.judges.llm import JudgeConfigError
from judge_runner.judges.products import LOG_FILE, PLAN_FILE, VERDICT_FILE, read_log, read_verdict
from judge_runner.judges.registry import JudgeOptions, build_judge
from judge_runner.judges.rules import RulesJudge, make_judge
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.spec import RulesError
from tests.casebuilder import GOOD_RUN, VERIFIED_RUN, bash, build_case, msg, notice


def judge() -> RulesJudge:
    return make_judge(JudgeOptions(sandbox="none"))


def test_good_run_passes_with_products(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data")
    verdict = judge().judge(case, tmp_path / "out")
    assert verdict.decision is Decision.PASS and verdict.judge == "rules"
    for name in (PLAN_FILE, LOG_FILE, VERDICT_FILE):
        assert (tmp_path / "out" / name).is_file()
    log = read_log(tmp_path / "out")
    assert read_verdict(tmp_path / "out") == verdict
    assert set(verdict.citations) <= {i.id for i in log}
    assert all(log[i].outcome is Outcome.SUPPORTS for i in range(len(log))
               if log[i].id in verdict.citations)
    plan = (tmp_path / "out" / PLAN_FILE).read_text()
    assert "## P1: run_terminated" in plan


def test_timeout_fails_and_cites_the_termination_check(tmp_path: Path) -> None:
    steps = [*GOOD_RUN[:3], notice("task notification: background command finished")]
    case = build_case(tmp_path / "data", steps, status=TerminationStatus.NO_RESULT)
    verdict = judge().judge(case, tmp_path / "out")
    log = {i.id: i for i in read_log(tmp_path / "out")}
    assert verdict.decision is Decision.FAIL
    assert "run_terminated" in {log[c].check for c in verdict.citations}


def test_same_case_gives_byte_identical_products(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data", [bash("python3 a.py", "boom", 1), msg("Done.")])
    j = judge()
    first, second = j.judge(case, tmp_path / "a"), j.judge(case, tmp_path / "b")
    assert first.model_copy(update={"duration_s": 0}) == second.model_copy(update={"duration_s": 0})
    for name in (PLAN_FILE, LOG_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_every_evidence_reference_resolves(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data", artifacts={"/root/out.json": b"{}"})
    judge().judge(case, tmp_path / "out")
    steps = {str(s.index) for s in case.trajectory.steps}
    for inspection in read_log(tmp_path / "out"):
        for ref in inspection.evidence:
            if ref.kind == "step":
                assert ref.ref in steps
            elif ref.kind == "artifact":
                assert (case.artifacts_dir / ref.ref).is_file()


def test_unreadable_case_is_an_error_verdict(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data")
    (case.root / "trajectory.json").write_text("{not json")
    verdict = judge().judge(case, tmp_path / "out")
    assert verdict.decision is Decision.ERROR and verdict.error is not None
    assert "trajectory" in verdict.error or "ValidationError" in verdict.error
    assert read_verdict(tmp_path / "out").decision is Decision.ERROR


def test_registry_builds_the_rules_judge_and_config_names_the_rules() -> None:
    built = build_judge("rules", JudgeOptions())
    assert isinstance(built, RulesJudge)
    config = built.config()
    assert len(config["rules_sha256"]) == 64


def test_config_depends_on_the_rules_content_not_the_path(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from judge_runner.runs.store import config_hash

    def hashed(skill: Path) -> str:
        built = make_judge(JudgeOptions(skill=skill, sandbox="none"))
        return config_hash(built.name, built.config())

    monkeypatch.chdir(tmp_path)
    shutil.copytree(default_skill_dir(), tmp_path / "judgeskills" / "v2")
    assert hashed(Path("judgeskills/v2")) == hashed(Path("./judgeskills/v2")) \
        == hashed(tmp_path / "judgeskills" / "v2") == hashed(default_skill_dir())
    checks = tmp_path / "judgeskills" / "v2" / "checks.toml"
    checks.write_text(checks.read_text().replace("pass_threshold", "# edited\npass_threshold", 1))
    assert hashed(Path("judgeskills/v2")) != hashed(default_skill_dir())


def test_unknown_knobs_are_refused() -> None:
    with pytest.raises(JudgeConfigError, match=r"unknown option\(s\) for the rules judge: "
                                               r"\['typo'\]; known: none"):
        make_judge(JudgeOptions(sandbox="none", extra={"typo": 1}))
    with pytest.raises(JudgeConfigError, match="timeout_s"):  # no model, so no client knobs
        make_judge(JudgeOptions(sandbox="none", extra={"timeout_s": 5}))


def test_sandboxes_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="without a sandbox"):
        make_judge(JudgeOptions(sandbox="docker"))


def test_a_disabled_check_leaves_the_plan(tmp_path: Path) -> None:
    text = (default_skill_dir() / "checks.toml").read_text()
    skill = tmp_path / "skill"
    skill.mkdir()
    marker = "id = 'skills_consulted'"
    start = text.index(marker)
    end = text.index("enabled = true", start)
    (skill / "checks.toml").write_text(text[:end] + "enabled = false" + text[end + 14:])
    case = build_case(tmp_path / "data")
    RulesJudge(skill).judge(case, tmp_path / "out")
    assert "skills_consulted" not in {i.check for i in read_log(tmp_path / "out")}


def test_quotes_are_verified_against_the_cited_step(tmp_path: Path) -> None:
    steps = [*GOOD_RUN[:-1], msg(SAME_AS_FINAL)]  # the importer's stand-in for the final report
    case = build_case(tmp_path / "data", steps,
                      final_message="Could you provide the missing input file?")
    verdict = judge().judge(case, tmp_path / "out")
    log = {i.check: i for i in read_log(tmp_path / "out")}
    [ref] = log["no_deferral"].evidence
    assert verdict.decision is Decision.FAIL
    assert (ref.ref, ref.quote, ref.verified) == (str(len(steps) - 1), "Could you provide", True)
    quoted = [r for i in log.values() for r in i.evidence if r.quote]
    assert verdict.details["evidence"] == {"quotes": len(quoted),
                                           "verified": sum(1 for r in quoted if r.verified)}


def test_an_empty_trajectory_is_judged_from_termination_and_instruction(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data", [], status=TerminationStatus.NO_RESULT)
    verdict = judge().judge(case, tmp_path / "out")
    log = read_log(tmp_path / "out")
    assert verdict.decision is Decision.FAIL
    assert {r.kind for i in log for r in i.evidence} <= {"instruction", "skill"}
    assert all(r.verified for i in log for r in i.evidence if r.quote)


def test_refitted_weights_scale_and_offset_decide_the_probability(tmp_path: Path) -> None:
    case = build_case(tmp_path / "data", VERIFIED_RUN)
    base = judge()
    before = base.judge(case, tmp_path / "a")
    log = read_log(tmp_path / "a")
    shared = [i.check for i in log if i.outcome is Outcome.SUPPORTS
              and base.rules.by_id(i.check).support_weight is None]
    assert shared  # checks whose weight also counts for their support
    weights = {check: base.rules.by_id(check).weight + 1.0 for check in shared}
    refit = base.refitted(0.5, -0.25, weights)
    after = refit.judge(case, tmp_path / "b")
    assert after.details["support_weight"] == before.details["support_weight"] + len(shared)
    evidence = after.details["support_weight"] - after.details["refute_weight"]
    assert after.details["probability"] == round(1 / (1 + math.exp(-(0.5 * evidence - 0.25))), 6)
    assert after.details["probability"] != before.details["probability"]
    assert refit.config() == base.config()  # a calibration belongs to the skill as shipped
    assert base.rules.by_id(shared[0]).weight == weights[shared[0]] - 1.0  # base untouched
    with pytest.raises(RulesError, match="do not have: nope"):
        base.refitted(1.0, 0.0, {"nope": 1.0})
