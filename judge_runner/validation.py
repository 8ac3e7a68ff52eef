"""A pydantic ValidationError in words: where each problem is and what it is, one line each.

Every stage that reads a typed file, a model's answer or a tool call reports its validation
errors through these helpers, so a problem reads the same wherever it is found:
`rows.0.model: unknown field`, `threshold: Input should be a valid number`. A validator's own
sentence (a `ValueError` it raised) is given as it was written, without pydantic's
"Value error, " prefix, and a field the model does not declare is an "unknown field".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

type ErrorDetails = Mapping[str, Any]  # one of `ValidationError.errors()`


def location(loc: Sequence[int | str], whole: str) -> str:
    """A problem's place as a dotted path (`rows.0.model`); `whole` when the problem is of the
    whole value (an empty location)."""
    return ".".join(str(part) for part in loc) or whole


def message(error: ErrorDetails) -> str:
    """What the problem is: a validator's own sentence, "unknown field" for a field that is not
    declared, else pydantic's message."""
    if error["type"] == "value_error" and "error" in error.get("ctx", {}):
        return str(error["ctx"]["error"])
    if error["type"] == "extra_forbidden":
        return "unknown field"
    return str(error["msg"])


def problem(error: ErrorDetails, whole: str) -> str:
    """One problem as `place: what` (see `location` for `whole`)."""
    return f"{location(error['loc'], whole)}: {message(error)}"


def problems(exc: ValidationError, whole: str, most: int | None = None) -> str:
    """The problems of `exc` on one line, `; ` between them: every one, or the first `most`."""
    return "; ".join(problem(error, whole) for error in exc.errors()[:most])


def in_one_line(exc: Exception, whole: str, most: int = 3) -> str:
    """Any reading error on one line: a ValidationError's first `most` problems (see
    `problems`), else the first line of the error's own text."""
    if isinstance(exc, ValidationError):
        return problems(exc, whole, most)
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__
