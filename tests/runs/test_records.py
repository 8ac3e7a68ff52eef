"""What counts as a correct verdict: decided, labelled, and equal to the label."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label
from judge_runner.judges import Decision
from judge_runner.runs.records import is_correct


@pytest.mark.parametrize(("decision", "label", "expected"), [
    (Decision.PASS, Label.PASS, True),
    (Decision.FAIL, Label.FAIL, True),
    (Decision.PASS, Label.FAIL, False),
    (Decision.FAIL, Label.PASS, False),
    (Decision.ERROR, Label.PASS, None),
    (Decision.ABSTAIN, Label.FAIL, None),
    (Decision.PASS, None, None),
])
def test_is_correct(decision: Decision, label: Label | None, expected: bool | None) -> None:
    assert is_correct(decision, label) is expected
