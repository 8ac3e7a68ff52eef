"""What a case truly is (`Label`), what a judge decided (`Decision`), and whether the two agree.

A label is pass or fail. A decision may also be an abstention (the judge was allowed to say it
cannot tell) or an error (it could not judge); neither is ever right or wrong.
"""

from __future__ import annotations

from enum import StrEnum


class Label(StrEnum):
    PASS = "pass"
    FAIL = "fail"


class Decision(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ABSTAIN = "abstain"
    ERROR = "error"

    @property
    def is_decided(self) -> bool:
        return self in (Decision.PASS, Decision.FAIL)


def is_correct(decision: Decision, label: Label | None) -> bool | None:
    """Whether a decision matches the label; None when there is no label or nothing was decided
    (an error or an abstention is never right or wrong)."""
    if label is None or not decision.is_decided:
        return None
    return decision.value == label.value
