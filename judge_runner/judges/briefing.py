"""Handing a model judge pre-computed findings of another judge, marked as leads to check.

A judge that can take a briefing implements `TakesBriefing.judge_briefed`: the same as `judge`,
with the briefing text appended to the case it is shown. The cascade judge (`cascade.py`) uses it
to pass on what the rules judge found when it could not decide a case. The briefing says whose
findings they are and that they are to be verified, never trusted or cited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from judge_runner.cases import CasePackage
from judge_runner.core import Inspection, Verdict
from judge_runner.untrusted import Fence

BRIEFING_TITLE = "Pre-computed findings of the rules judge (to be checked, not trusted)"


@runtime_checkable
class TakesBriefing(Protocol):
    def judge_briefed(self, case: CasePackage, out_dir: Path, briefing: str) -> Verdict:
        """`judge`, with `briefing` (Markdown; may be empty) shown after the case."""
        ...


def render_briefing(log: list[Inspection], verdict: Verdict, fence: Fence) -> str:
    """The rules judge's findings on an undecided case, as a Markdown section. A finding may
    quote the run (an output line, a phrase of the report), so each is an escaped literal
    (`fence.inline`): nothing the agent wrote stands outside the case's fences."""
    probability = verdict.details.get("probability")
    score = f"{probability:.2f}" if isinstance(probability, int | float) else "unknown"
    lines = [
        f"## {BRIEFING_TITLE}",
        "",
        "A deterministic rules judge (pattern matching over the trajectory, no understanding of "
        f"the task) read this case first and did not decide it (its pass probability: {score}). "
        "Its findings below are leads, not evidence: each may be wrong. Verify any you rely on "
        "against the trajectory and the artifacts yourself, and cite only your own inspections, "
        "never these lines.",
        "",
    ]
    for inspection in log:
        refs = ", ".join(f"{r.kind} {r.ref}" for r in inspection.evidence[:4])
        lines.append(f"- {inspection.outcome.value}: {inspection.check}: "
                     f"{fence.inline(inspection.finding)}"
                     + (f" ({refs})" if refs else ""))
    if not log:
        lines.append("- (no check applied to this case)")
    return "\n".join(lines) + "\n"
