"""The case-id rule: one folder name under cases/, nothing that is a path."""

from __future__ import annotations

import pytest

from judge_runner.cases.ids import MAX_CASE_ID_BYTES, case_id_problem, is_case_id
from judge_runner.ingest import case_id_for


@pytest.mark.parametrize("text", ["case-a", "c1", "xlsx-report__0123456789", "A.b_c-9",
                                  "case-<b>", "two words", "caf\u00e9", ".hidden", "..x",
                                  "x" * MAX_CASE_ID_BYTES])
def test_case_ids_are_accepted(text: str) -> None:
    assert case_id_problem(text) is None and is_case_id(text)


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("../cases/case-a", "a path"),
    ("/data/ds/cases/case-a", "a path"),
    ("cases/case-a", "a path"),
    ("..\\case-a", "a path"),
    ("..", "relative path step"),
    (".", "relative path step"),
    ("tab\there", "control character"),
    ("nul\0byte", "control character"),
    ("line\nbreak", "control character"),
    (" padded", "spaces around"),
    ("x" * (MAX_CASE_ID_BYTES + 1), "longer than"),
    ("\u00e9" * 128, "longer than"),  # 256 bytes in UTF-8
])
def test_anything_else_is_refused_with_a_reason(text: str, reason: str) -> None:
    problem = case_id_problem(text)
    assert problem is not None and reason in problem
    assert not is_case_id(text)


def test_importer_ids_follow_the_rule() -> None:
    for task in ("Excel Report!", "../../etc", "a" * 300, "", "ünïcode task"):
        assert is_case_id(case_id_for(task, "trial-1", "folder/x"))
