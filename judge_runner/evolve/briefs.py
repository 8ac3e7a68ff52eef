"""Compressing reflection bundles into rewrite briefs within a token bound.

Briefs are deterministic text. Cases are anonymised ("case 1") and task names are masked, so an
optimizer learns failure patterns rather than particular tasks; candidate validation still checks
that no case id, task name or verbatim evidence reaches a candidate skill.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict

from judge_runner.cases import estimate_tokens
from judge_runner.core import Label, Outcome
from judge_runner.evolve.bundles import Bundle, BundleCase, JudgedCase
from judge_runner.evolve.state import Strategy
from judge_runner.text import cut, sha256_text

GOALS = {
    Strategy.HARDEN: (
        "The judge accepted runs that truly failed. Make the skill demand stronger positive "
        "evidence and name the failure signals it overlooked, without rejecting genuine successes."
    ),
    Strategy.RELAX: (
        "The judge rejected runs that truly passed. Make the skill stop treating the signals it "
        "over-weighted as task-critical when the final artifacts and checks show success."
    ),
    Strategy.CALIBRATE: (
        "The judge made errors in both directions. Rebalance what counts as sufficient evidence "
        "and what counts as a task-critical failure."
    ),
}


class Briefs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: dict[Strategy, str]
    shared: str

    def hashes(self) -> dict[str, str]:
        out = {s.value: sha256_text(text) for s, text in self.strategy.items()}
        out["shared"] = sha256_text(self.shared)
        return out


def _bounded(text: str, max_chars: int) -> str:
    """Head+tail cut whose result, marker included, stays near `max_chars`; text within the bound
    is returned unchanged."""
    if len(text) <= max_chars:
        return text
    return cut(text, max(max_chars - 40, 0))[0]


def _mask(text: str, task: str) -> str:
    return text.replace(task, "<task>") if task else text


def case_brief(number: int, case: BundleCase, max_chars: int) -> str:
    refuting = [i for i in case.inspections if i.outcome is Outcome.REFUTES]
    supporting = [i for i in case.inspections if i.outcome is Outcome.SUPPORTS]
    lines = [
        f"### case {number} ({case.domain or 'unknown domain'})",
        f"judged {case.judged.value.upper()}, truly {case.truth.value.upper()}",
        f"judge rationale: {case.rationale}",
        f"inspections: {len(supporting)} supporting, {len(refuting)} refuting, "
        f"{len(case.inspections) - len(supporting) - len(refuting)} inconclusive",
    ]
    for insp in case.inspections:
        lines.append(f"- [{insp.plan_item}] {insp.outcome.value}: {insp.finding}")
    lines.append("what the verifier saw (dev-only):")
    lines.append(case.evidence_digest or "(no verifier evidence recorded)")
    return _bounded(_mask("\n".join(lines), case.task), max_chars)


def strategy_brief(bundle: Bundle, token_bound: int) -> str:
    header = f"## Rewrite goal: {bundle.strategy.value}\n{GOALS[bundle.strategy]}\n"
    budget_chars = max(token_bound * 4 - len(header), 400)
    per_case = max(budget_chars // max(len(bundle.cases), 1), 200)
    briefs = [case_brief(n, c, per_case) for n, c in enumerate(bundle.cases, start=1)]
    text = header + "\n" + "\n\n".join(briefs)
    return _bounded(text, token_bound * 4) if estimate_tokens(text) > token_bound else text


def shared_brief(
    judged: list[JudgedCase], bundles: dict[Strategy, Bundle], token_bound: int
) -> str:
    """The train signal common to all strategies: error counts and recurring inspection items."""
    decided = [j for j in judged if j.verdict.decision.is_decided]
    wrong = [j for j in decided if j.misjudged]
    fp = sum(1 for j in wrong if j.label is Label.FAIL)
    errors = len(judged) - len(decided)
    lines = [
        "## Train signal",
        f"sample: {len(judged)} dev cases; {len(decided)} decided, {errors} judge errors",
        f"misjudged: {len(wrong)} ({fp} false passes, {len(wrong) - fp} false fails)",
    ]
    by_domain = Counter(
        c.domain or "unknown"
        for b in bundles.values()
        for c in b.cases
        if b.strategy is not Strategy.CALIBRATE
    )
    if by_domain:
        lines.append(
            "misjudged by domain: " + ", ".join(f"{d} {n}" for d, n in sorted(by_domain.items()))
        )
    items = Counter(
        (i.plan_item, i.outcome.value)
        for b in bundles.values()
        if b.strategy is not Strategy.CALIBRATE
        for c in b.cases
        for i in c.inspections
    )
    if items:
        lines.append("inspection items recurring in misjudged cases (item, outcome, count):")
        lines += [
            f"- {item} {outcome}: {n}"
            for (item, outcome), n in sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
        ]
    return _bounded("\n".join(lines), token_bound * 4)


def make_briefs(
    judged: list[JudgedCase], bundles: dict[Strategy, Bundle], token_bound: int
) -> Briefs:
    return Briefs(
        strategy={s: strategy_brief(b, token_bound) for s, b in sorted(bundles.items())},
        shared=shared_brief(judged, bundles, token_bound // 4),
    )
