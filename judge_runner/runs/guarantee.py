"""What a run with calibrated judges promises, and how it did.

The promise is read from the judge's configuration: a calibrated judge records its calibration
(`config["calibration"]`), a cascade each stage's (`config["stages"][i]`). The statement is one
sentence per calibrated stage (`judge_runner.calibration.guarantee_sentence`), plus, when a stage
decides without a calibration (the last stage of a cascade forced to decide), that the guarantee
covers only the calibrated stages. Beside it: the agreement and coverage the run actually had,
on all labelled cases and on those the calibrated stages decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.calibration import guarantee_sentence

if TYPE_CHECKING:
    from judge_runner.runs.records import CaseRecord


class StagePromise(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    stage: str
    calibrated: bool
    alpha: float | None = None
    delta: float | None = None
    n: int | None = None
    threshold: float | None = None
    dev_coverage: float | None = None
    sentence: str = ""


class Guarantee(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    statement: str  # the promise, in plain words
    stages: list[StagePromise] = Field(default_factory=list)
    covers_all_stages: bool
    n_labeled: int
    coverage: float  # decided / labelled cases of this run
    agreement: float | None  # on the labelled decided cases
    calibrated_coverage: float  # decided by a calibrated stage / labelled cases
    calibrated_agreement: float | None  # on those


def _promises(config: dict[str, Any]) -> list[StagePromise]:
    stages = config.get("stages")
    if isinstance(stages, list):  # a cascade
        return [_promise(str(s.get("stage")), s.get("config", {}).get("calibration"))
                for s in stages if isinstance(s, dict)]
    return [_promise(str(config.get("judge", "judge")), config.get("calibration"))]


def _promise(stage: str, calibration: Any) -> StagePromise:
    if not isinstance(calibration, dict):
        return StagePromise(stage=stage, calibrated=False)
    alpha, delta = float(calibration["alpha"]), float(calibration["delta"])
    n, threshold = int(calibration["n"]), calibration.get("threshold")
    coverage = float(calibration.get("coverage", 0.0))
    return StagePromise(stage=stage, calibrated=True, alpha=alpha, delta=delta, n=n,
                        threshold=threshold, dev_coverage=coverage,
                        sentence=guarantee_sentence(alpha, delta, n, threshold, coverage))


def guarantee_of(config: dict[str, Any], records: Sequence[CaseRecord]) -> Guarantee | None:
    """None when no stage of the judge is calibrated."""
    promises = _promises(config)
    if not any(p.calibrated for p in promises):
        return None
    calibrated = {p.stage for p in promises if p.calibrated}
    single = len(promises) == 1
    labelled = [r for r in records if r.label is not None]
    decided = [r for r in labelled if r.decision.is_decided]
    by_calibrated = [r for r in decided
                     if single or r.verdict.details.get("stage") in calibrated]
    parts = [f"{p.stage}: {p.sentence}" if not single else p.sentence
             for p in promises if p.calibrated]
    uncovered = [p.stage for p in promises if not p.calibrated]
    if uncovered:
        parts.append(f"The guarantee covers only the calibrated stages: "
                     f"{', '.join(uncovered)} decided without a calibration, so its verdicts "
                     "carry no promise.")
    return Guarantee(
        statement=" ".join(parts), stages=promises, covers_all_stages=not uncovered,
        n_labeled=len(labelled),
        coverage=_share(len(decided), len(labelled)),
        agreement=_agreement(decided),
        calibrated_coverage=_share(len(by_calibrated), len(labelled)),
        calibrated_agreement=_agreement(by_calibrated))


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def _agreement(records: Sequence[CaseRecord]) -> float | None:
    return round(sum(1 for r in records if r.correct) / len(records), 6) if records else None
