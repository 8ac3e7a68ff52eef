"""Mechanical checks: items decided by code against the run's artifacts, with no model.

Outcomes follow the evidence rule: a check whose artifact is present and readable gives Yes or
No with the text it looked at as a verified citation; an artifact that was written but whose
content was not recovered (or is binary / too large) gives Abstain.

A path the case package does not list gives Abstain, never No: the importer recovers files from
file-writing tool calls and shell redirects only, so a file written by a program the agent ran
(`python3 solve.py` writing `/root/output/x.json`) is never listed even when it exists. Absence
from the list is missing evidence, not evidence of absence.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from judge_runner.checklist.evidence import ExecutionLog
from judge_runner.checklist.models import (
    ArtifactContains,
    ArtifactExists,
    CsvColumns,
    EvidenceCite,
    ItemJudgment,
    JsonValue,
    JudgmentSource,
    Label,
    MechanicalCheck,
)


def run_check(item_id: str, check: MechanicalCheck, log: ExecutionLog) -> ItemJudgment:
    artifact = log.artifact(check.path)
    if artifact is None:
        return _judgment(item_id, Label.ABSTAIN,
                         f"{check.path} is not among the recovered artifacts (files written by "
                         "programs the run executed are not recorded)")
    if isinstance(check, ArtifactExists):
        cite = EvidenceCite(kind="artifact", ref=artifact.path, quote="", verified=True)
        return _judgment(item_id, Label.YES, f"artifact {artifact.path} exists", cite)
    if artifact.text is None:
        return _judgment(item_id, Label.ABSTAIN,
                         f"content of {artifact.path} is not available ({artifact.note})")
    if isinstance(check, ArtifactContains):
        return _contains(item_id, check, artifact.path, artifact.text)
    if isinstance(check, JsonValue):
        return _json_value(item_id, check, artifact.path, artifact.text)
    return _csv_columns(item_id, check, artifact.path, artifact.text)


def _judgment(item_id: str, label: Label, reason: str, *cites: EvidenceCite) -> ItemJudgment:
    return ItemJudgment(item_id=item_id, label=label, source=JudgmentSource.CODE, reason=reason,
                        evidence=list(cites))


def _cite(path: str, quote: str) -> EvidenceCite:
    return EvidenceCite(kind="artifact", ref=path, quote=quote, verified=True)


def _contains(item_id: str, check: ArtifactContains, path: str, text: str) -> ItemJudgment:
    if check.text in text:
        return _judgment(item_id, Label.YES, f"{path} contains the required text",
                         _cite(path, check.text))
    return _judgment(item_id, Label.NO, f"{path} does not contain {check.text!r}")


def _json_value(item_id: str, check: JsonValue, path: str, text: str) -> ItemJudgment:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        return _judgment(item_id, Label.NO, f"{path} is not valid JSON: {exc}")
    try:
        actual = resolve_pointer(data, check.pointer)
    except LookupError as exc:
        return _judgment(item_id, Label.NO, f"{path}: {exc}")
    rendered = json.dumps(actual, ensure_ascii=False)
    cite = _cite(path, rendered) if rendered in text else _cite(path, "")
    if _same(actual, check.value, check.tolerance):
        return _judgment(item_id, Label.YES, f"{path}{check.pointer} = {rendered}", cite)
    return _judgment(item_id, Label.NO,
                     f"{path}{check.pointer} = {rendered}, expected {check.value!r}", cite)


def _same(actual: Any, expected: Any, tolerance: float) -> bool:
    numbers = (int, float)
    if (isinstance(actual, numbers) and isinstance(expected, numbers)
            and not isinstance(actual, bool) and not isinstance(expected, bool)):
        return abs(float(actual) - float(expected)) <= tolerance
    return bool(actual == expected)


def resolve_pointer(data: Any, pointer: str) -> Any:
    """RFC 6901 JSON pointer lookup. Raises LookupError saying which part is missing."""
    if pointer in ("", "/"):
        return data
    if not pointer.startswith("/"):
        raise LookupError(f"JSON pointer {pointer!r} must start with '/'")
    current = data
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise LookupError(f"no value at {pointer} (missing {part!r})")
    return current


def _csv_columns(item_id: str, check: CsvColumns, path: str, text: str) -> ItemJudgment:
    header = next(csv.reader(io.StringIO(text)), [])
    columns = [c.strip() for c in header]
    missing = [c for c in check.columns if c not in columns]
    first_line = text.splitlines()[0] if text else ""
    if missing:
        return _judgment(item_id, Label.NO, f"{path} header lacks {missing}",
                         _cite(path, first_line))
    return _judgment(item_id, Label.YES, f"{path} header has {check.columns}",
                     _cite(path, first_line))
