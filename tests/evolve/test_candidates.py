from __future__ import annotations

from pathlib import Path

from judge_runner.evolve.candidates import MAX_SKILL_MD_CHARS, LeakageGuard, validate_candidate
from tests.evolve.helpers import SKILL_MD

EVIDENCE = "AssertionError: expected 42.17 in /root/output.csv row 3, found 41.00 instead"
GUARD = LeakageGuard.build(
    case_ids=["t3-c07"],
    task_names=["flood-risk-analysis"],
    evidence_texts=[f"short line\n{EVIDENCE}\n"],
)


def skill(tmp: Path, body: str = "", skill_md: str = SKILL_MD) -> Path:
    d = tmp / "cand"
    d.mkdir()
    (d / "SKILL.md").write_text(skill_md + body, encoding="utf-8")
    return d


def test_clean_candidate_is_valid(tmp_path: Path) -> None:
    assert validate_candidate(skill(tmp_path, "\nCheck that output files exist.\n"), GUARD) == []


def test_case_id_task_name_and_verbatim_evidence_are_refused(tmp_path: Path) -> None:
    body = f"\nAs in t3-c07, for flood-risk-analysis runs look for:\n{EVIDENCE}\n"
    problems = validate_candidate(skill(tmp_path, body), GUARD)
    assert any("case id 't3-c07'" in p for p in problems)
    assert any("task 'flood-risk-analysis'" in p for p in problems)
    assert any("verifier evidence verbatim" in p for p in problems)


def test_task_name_inside_a_longer_word_is_not_a_leak(tmp_path: Path) -> None:
    assert validate_candidate(skill(tmp_path, "\nsee flood-risk-analysis-v2 docs\n"), GUARD) == []


def test_front_matter_and_size_limits(tmp_path: Path) -> None:
    no_version = SKILL_MD.replace('version: "1"\n', "")
    assert any("version" in p for p in validate_candidate(skill(tmp_path, "", no_version), GUARD))
    big = tmp_path / "big"
    big.mkdir()
    (big / "SKILL.md").write_text(SKILL_MD + "x" * MAX_SKILL_MD_CHARS, encoding="utf-8")
    assert any("exceeds the limit" in p for p in validate_candidate(big, GUARD))


def test_broken_checks_toml_is_refused(tmp_path: Path) -> None:
    d = skill(tmp_path)
    (d / "checks.toml").write_text("[check\nweight = ", encoding="utf-8")
    assert any("invalid TOML" in p for p in validate_candidate(d, GUARD))
