"""How well a judge's confidence tracks whether it is right, on labelled cases.

Three measures over `Scored` cases (confidence in the decided side, and whether the decision
agreed with the verifier):

- **Brier score**: mean of (confidence − correct)²; 0 is perfect, 0.25 is a constant 0.5.
- **ECE** (expected calibration error): the cases are put in `bins` equal-width confidence bins
  over [0.5, 1] (a confidence is in the decided side, so never below 0.5; a lower one is clipped
  into the first bin); ECE = Σ (bin size / n) · |mean confidence − accuracy| over the bins.
- **AURC** (area under the risk–coverage curve): cases sorted by confidence, highest first
  (ties decided together); the mean, over every coverage step, of the error rate among the cases
  decided so far. What selective evaluation cares about: low when the cases the judge is surest
  of are the ones it gets right. A confidence that ranks the cases at random has an AURC near
  the overall error rate.

A confidence that is the same for every case scores an AURC equal to the error rate whatever
its value; a judge whose confidences are all equal cannot be thresholded usefully, and
`distinct` says how many different values it gave.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge_runner.calibration.model import Quality
from judge_runner.calibration.select import Scored

DEFAULT_BINS = 5


def quality(cases: Sequence[Scored], bins: int = DEFAULT_BINS) -> Quality | None:
    """The three measures (module docstring), rounded to 6 places; None without cases."""
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    if not cases:
        return None
    n = len(cases)
    right = [1.0 if c.correct else 0.0 for c in cases]
    brier = sum((c.confidence - r) ** 2 for c, r in zip(cases, right, strict=True)) / n
    width = 0.5 / bins
    ece = 0.0
    for b in range(bins):
        members = [(c.confidence, r) for c, r in zip(cases, right, strict=True)
                   if _bin(c.confidence, width, bins) == b]
        if members:
            mean_conf = sum(m[0] for m in members) / len(members)
            accuracy = sum(m[1] for m in members) / len(members)
            ece += len(members) / n * abs(mean_conf - accuracy)
    return Quality(n=n, accuracy=round(sum(right) / n, 6), brier=round(brier, 6),
                   ece=round(ece, 6), aurc=round(_aurc(cases), 6),
                   distinct=len({c.confidence for c in cases}))


def _bin(confidence: float, width: float, bins: int) -> int:
    # the small slack keeps a value on a bin edge (0.6 = 0.5 + 0.1) in the upper bin
    return min(bins - 1, max(0, int((confidence - 0.5) / width + 1e-9)))


def _aurc(cases: Sequence[Scored]) -> float:
    ordered = sorted(cases, key=lambda c: -c.confidence)
    risks: list[float] = []
    errors = 0
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j].confidence == ordered[i].confidence:
            errors += 0 if ordered[j].correct else 1
            j += 1
        # every coverage step inside a tie gets the tie's risk: the tie is decided at once
        risks += [errors / j] * (j - i)
        i = j
    return sum(risks) / len(risks)


def describe(quality: Quality) -> str:
    """One line: `Brier 0.180, ECE 0.120, AURC 0.250 on 20 cases (accuracy 0.70, 4 values)`."""
    return (f"Brier {quality.brier:.3f}, ECE {quality.ece:.3f}, AURC {quality.aurc:.3f} on "
            f"{quality.n} case{'' if quality.n == 1 else 's'} (accuracy {quality.accuracy:.2f}, "
            f"{quality.distinct} distinct value{'' if quality.distinct == 1 else 's'})")
