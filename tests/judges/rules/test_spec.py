"""checks.toml: loading, validation errors that name the problem, and deterministic dumping."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.spec import CHECKS_FILE, RulesError, dump_rules, load_rules


def test_bundled_rules_load() -> None:
    rules = load_rules(default_skill_dir(), known_checks())
    assert rules.enabled() and 0.0 <= rules.verdict.pass_threshold <= 1.0


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match=r"checks\.toml: not found"):
        load_rules(tmp_path, known_checks())


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / CHECKS_FILE).write_text("[verdict\n")
    with pytest.raises(RulesError, match="cannot read"):
        load_rules(tmp_path, known_checks())


def test_unknown_check_is_rejected(tmp_path: Path) -> None:
    (tmp_path / CHECKS_FILE).write_text(
        "[[check]]\nid = 'made_up'\ndescription = 'x'\nevidence = 'trajectory'\nweight = 1.0\n")
    with pytest.raises(RulesError, match="unknown check ids \\['made_up'\\]"):
        load_rules(tmp_path, known_checks())


def test_negative_weight_and_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    body = "[[check]]\nid = 'error_ratio'\ndescription = 'x'\nevidence = 'trajectory'\n"
    (tmp_path / CHECKS_FILE).write_text(body + "weight = -1.0\n")
    with pytest.raises(RulesError, match="weight"):
        load_rules(tmp_path, known_checks())
    (tmp_path / CHECKS_FILE).write_text((body + "weight = 1.0\n") * 2)
    with pytest.raises(RulesError, match="duplicate check ids: error_ratio"):
        load_rules(tmp_path, known_checks())


def test_bad_regex_is_rejected_at_load_time(tmp_path: Path) -> None:
    (tmp_path / CHECKS_FILE).write_text(
        "[[check]]\nid = 'no_deferral'\ndescription = 'x'\nevidence = 'final_message'\n"
        "weight = 1.0\n[check.thresholds]\nphrases = ['(unclosed']\n")
    with pytest.raises(RulesError, match="no_deferral: phrases: bad regex"):
        load_rules(tmp_path, known_checks())


def test_wrong_threshold_type_is_reported() -> None:
    rules = load_rules(default_skill_dir(), known_checks())
    spec = rules.by_id("error_ratio").model_copy(update={"thresholds": {"max_ratio": "high"}})
    with pytest.raises(RulesError, match="max_ratio"):
        spec.number("max_ratio", 0.3)


def test_dump_round_trips_byte_identically(tmp_path: Path) -> None:
    rules = load_rules(default_skill_dir(), known_checks())
    text = dump_rules(rules, header="generated")
    (tmp_path / CHECKS_FILE).write_text(text)
    again = load_rules(tmp_path, known_checks())
    assert again == rules
    assert dump_rules(again, header="generated") == text


def test_reweighted_replaces_named_weights_and_refuses_unknown_checks() -> None:
    rules = load_rules(default_skill_dir(), known_checks())
    changed = rules.reweighted({"last_test_passed": 2.5}, {"no_deferral": 0.25})
    assert changed.by_id("last_test_passed").weight == 2.5
    assert changed.by_id("no_deferral").support_weight == 0.25
    assert changed.by_id("no_deferral").weight == rules.by_id("no_deferral").weight
    assert [c for c in changed.check if c.id not in ("last_test_passed", "no_deferral")] == \
        [c for c in rules.check if c.id not in ("last_test_passed", "no_deferral")]
    with pytest.raises(RulesError, match="checks these rules do not have: nope"):
        rules.reweighted({"nope": 1.0}, {})
