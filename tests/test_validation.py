"""A ValidationError in words: each problem's place and what it is, on one line."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from judge_runner.validation import location, message, problem, problems


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threshold: float

    @field_validator("threshold")
    @classmethod
    def _in_range(cls, value: float) -> float:
        if not 0 <= value <= 1:
            raise ValueError(f"threshold {value} is outside 0..1")
        return value


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rows: list[Inner]


def _error(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Outer.model_validate(data)
    return caught.value


def test_each_kind_of_problem_reads_as_one_sentence() -> None:
    exc = _error({"rows": [{"threshold": 2}, {"threshold": "x", "extra": 1}], "more": 0})
    assert [problem(e, "plan") for e in exc.errors()] == [
        "rows.0.threshold: threshold 2.0 is outside 0..1",
        "rows.1.threshold: Input should be a valid number, unable to parse string as a number",
        "rows.1.extra: unknown field",
        "more: unknown field",
    ]


def test_a_problem_of_the_whole_value_is_named_as_given() -> None:
    exc = _error([1, 2])
    assert location(exc.errors()[0]["loc"], "(root)") == "(root)"
    assert problems(exc, "file").startswith("file: Input should be")
    assert message(exc.errors()[0]) == exc.errors()[0]["msg"]


def test_problems_are_one_line_and_can_be_cut_to_the_first_few() -> None:
    exc = _error({"rows": [{"threshold": 5}, {"threshold": 6}, {"threshold": 7}]})
    every = problems(exc, "plan")
    assert "\n" not in every and every.count("; ") == 2
    assert problems(exc, "plan", most=2) == "; ".join(every.split("; ")[:2])


def test_in_one_line_names_fields_or_takes_the_first_line() -> None:
    from judge_runner.validation import in_one_line

    class Point(BaseModel):
        x: int

    try:
        Point.model_validate({"x": "no"})
    except ValidationError as exc:
        assert in_one_line(exc, "file") == "x: Input should be a valid integer, unable to " \
                                           "parse string as an integer"
    assert in_one_line(ValueError("first\nsecond"), "file") == "first"
    assert in_one_line(OSError(), "file") == "OSError"
