"""Applying a calibration to a verdict: decide at or above the threshold, abstain below.

The decision kept is the judge's own when it decided, or the one it would have forced when it
abstained by its own rule (`details["forced"]`, the rules judge's abstain margin): the threshold,
not the judge's margin, says where it decides. A verdict without a confidence cannot be placed
against the threshold, so it abstains. Errors pass through untouched: they are never decided.
"""

from __future__ import annotations

from typing import Any

from judge_runner.calibration.model import Calibration
from judge_runner.core import Decision, Verdict


def forced_decision(verdict: Verdict) -> Decision | None:
    """The pass/fail the verdict stands for: its decision, or its recorded forced decision."""
    if verdict.decision.is_decided:
        return verdict.decision
    forced = verdict.details.get("forced")
    return Decision(forced) if forced in ("pass", "fail") else None


def apply(calibration: Calibration, verdict: Verdict) -> Verdict:
    """The verdict as the calibrated judge gives it (see the module docstring)."""
    if verdict.decision is Decision.ERROR:
        return verdict
    forced = forced_decision(verdict)
    confidence = verdict.confidence
    threshold = calibration.threshold
    decides = (forced is not None and confidence is not None and threshold is not None
               and confidence >= threshold)
    note: dict[str, Any] = {"threshold": threshold, "confidence": confidence,
                            "decided": decides, "sha256": calibration.sha256}
    details = {**verdict.details, "calibration": note}
    if forced is not None:
        details["forced"] = forced.value
    if decides:
        assert forced is not None
        return verdict.model_copy(update={"decision": forced, "details": details})
    if threshold is None:
        why = "no calibrated threshold (no threshold passed on the dev cases)"
    elif confidence is None:
        why = "the judge gave no confidence"
    else:
        why = f"confidence {confidence:.3f} below the calibrated threshold {threshold:g}"
    rationale = f"abstained: {why}" + (f"; {verdict.rationale}" if verdict.rationale else "")
    return verdict.model_copy(update={"decision": Decision.ABSTAIN, "rationale": rationale,
                                      "details": details})
