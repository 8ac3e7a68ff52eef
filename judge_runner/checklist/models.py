"""Pydantic models of a frozen per-task checklist and of the judgments made against it.

A checklist is written once per task (by the synthesizer, from the task instruction and the
official verifier only) and then frozen: its `content_hash` covers every field that changes how
runs are scored, and a checklist whose stored hash does not match its content is refused on load.

Routes say how an item is decided:

- ``assertion``: a verifier test asserts the requirement (``verifier_ref`` names it); an official
  PASS therefore implies the item holds.
- ``generated``: a requirement of the instruction that no verifier test covers.
- ``judge``: a requirement only a reading of the execution log can decide (process, the
  claim-versus-trace check).

Any item may carry a mechanical ``check`` against the run's artifacts; such items are decided by
code, offline, and never sent to a model.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.text import sha256_text

CHECKLIST_SCHEMA = "checklist/1"


class Route(StrEnum):
    ASSERTION = "assertion"
    GENERATED = "generated"
    JUDGE = "judge"


class ItemKind(StrEnum):
    REQUIREMENT = "requirement"
    CLAIM_TRACE = "claim_trace"  # claims in the final report must have a matching trace entry


class Label(StrEnum):
    YES = "yes"
    NO = "no"
    ABSTAIN = "abstain"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# Mechanical checks: small, closed set, evaluated by code against the case artifacts.


class ArtifactExists(_Model):
    kind: Literal["artifact_exists"] = "artifact_exists"
    path: str


class ArtifactContains(_Model):
    kind: Literal["artifact_contains"] = "artifact_contains"
    path: str
    text: str = Field(min_length=1)


class JsonValue(_Model):
    """The JSON artifact at `path` holds `value` at `pointer` (RFC 6901).

    Numbers match within `tolerance`; other values must be equal."""

    kind: Literal["json_value"] = "json_value"
    path: str
    pointer: str
    value: Any
    tolerance: float = Field(default=0.0, ge=0.0)


class CsvColumns(_Model):
    """The CSV artifact at `path` has a header row holding every column in `columns`."""

    kind: Literal["csv_columns"] = "csv_columns"
    path: str
    columns: list[str] = Field(min_length=1)


MechanicalCheck = Annotated[
    ArtifactExists | ArtifactContains | JsonValue | CsvColumns, Field(discriminator="kind")
]


class ChecklistItem(_Model):
    id: str = Field(pattern=r"^C\d{2,3}$")  # C01, C02, ...
    order: int = Field(ge=1)  # position in the ordered (gated) reading; 1 = first
    requirement: str = Field(min_length=1)
    quote: str | None = None  # verbatim span of the instruction; optional only for claim_trace
    verifier_ref: str | None = None  # verifier test name, e.g. "test_outputs.py::TestX::test_y"
    route: Route
    weight: float = Field(default=1.0, gt=0.0)
    kind: ItemKind = ItemKind.REQUIREMENT
    check: MechanicalCheck | None = None


class ChecklistProvenance(_Model):
    """What the checklist was made from; lets a reader confirm nothing else went in."""

    instruction_sha256: str
    verifier_files: dict[str, str]  # tests/ file name -> sha256
    rules_sha256: str
    model: str | None = None  # None when written by hand


class Checklist(_Model):
    schema_version: str = CHECKLIST_SCHEMA
    task: str
    items: list[ChecklistItem]
    provenance: ChecklistProvenance
    content_hash: str = ""  # filled by `freeze`

    def compute_hash(self) -> str:
        payload = self.model_dump(mode="json", exclude={"content_hash"})
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return sha256_text(blob)

    def freeze(self) -> Checklist:
        return self.model_copy(update={"content_hash": self.compute_hash()})

    @property
    def is_frozen(self) -> bool:
        return self.content_hash == self.compute_hash()

    def ordered(self) -> list[ChecklistItem]:
        return sorted(self.items, key=lambda i: (i.order, i.id))

    def item(self, item_id: str) -> ChecklistItem:
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(f"checklist {self.task}: no item {item_id}")


class ChecklistLoadError(ValueError):
    """A checklist file is unreadable, invalid, or its content no longer matches its hash."""


def checklist_path(directory: Path, task: str) -> Path:
    return directory / f"{task}.json"


def write_checklist(directory: Path, checklist: Checklist) -> Path:
    """Freeze `checklist` and write it as `<directory>/<task>.json` (stable key order)."""
    directory.mkdir(parents=True, exist_ok=True)
    frozen = checklist.freeze()
    path = checklist_path(directory, frozen.task)
    path.write_text(frozen.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path


def read_checklist(path: Path) -> Checklist:
    """Load a frozen checklist. Raises ChecklistLoadError naming the file when it is invalid or
    was edited after freezing (a stale hash would silently change what runs are scored against)."""
    try:
        checklist = Checklist.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ChecklistLoadError(f"{path}: not a readable checklist: {exc}") from exc
    if not checklist.is_frozen:
        raise ChecklistLoadError(
            f"{path}: content hash mismatch (stored {checklist.content_hash[:12] or 'none'}, "
            f"content {checklist.compute_hash()[:12]}); re-freeze it with `checklist validate "
            "--refreeze` after review"
        )
    return checklist


class EvidenceCite(_Model):
    """One piece of cited evidence. kind: "step" (ref = step index), "artifact" (ref = path) or
    "report" (the run's final report; ref is ignored). A report quote is a claim of the run, not
    evidence of the task: it can only back a claim-versus-trace No (see `score.py`)."""

    kind: Literal["step", "artifact", "report"]
    ref: str
    quote: str = ""
    verified: bool = False  # machine check: quote found in the referenced source


class JudgmentSource(StrEnum):
    CODE = "code"  # mechanical check
    MODEL = "model"
    SKIPPED = "skipped"  # not judged (offline run, or the case errored)


class ItemJudgment(_Model):
    item_id: str
    label: Label
    source: JudgmentSource
    reason: str = ""
    evidence: list[EvidenceCite] = Field(default_factory=list)


class CaseJudgments(_Model):
    """Raw per-item judgments for one case, before the outcome step. `error` set = not scored."""

    case_id: str
    task: str
    checklist_hash: str
    judgments: list[ItemJudgment] = Field(default_factory=list)
    error: str | None = None
    usage: dict[str, float] = Field(default_factory=dict)
