"""Analyses over checklist scores: outcome discrimination, matched skill pairs, human agreement.

- ``auc``: probability that a random PASS case scores higher than a random FAIL case (the
  Mann-Whitney U statistic divided by n_pass·n_fail); a tie counts one half. Cases without a
  score (nothing decided) are left out and counted.
- ``pair_analysis``: with-skill and without-skill runs of the same task (and the same agent
  model, when known) are matched in case-id order; the change is with minus without. Reported per
  outcome transition: the median change for FAIL→PASS and PASS→FAIL, and for FAIL→FAIL the share
  of pairs improving, or regressing, by more than the margin (0.10).
- ``human_agreement``: share of human-preferred pairs the scores order the same way; a score tie
  counts one half, a human tie is skipped.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.checklist.models import Label
from judge_runner.core import Label as Outcome

PAIR_MARGIN = 0.10


class AucResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    auc: float | None  # None when either class is empty
    n_pass: int
    n_fail: int
    n_unscored: int  # labelled cases left out because their score is undefined


def auc(scores: Iterable[tuple[float | None, Outcome]]) -> AucResult:
    """AUC of `scores` for separating PASS (positive) from FAIL, ties counted one half.

    Uses ranks with mid-rank ties (O(n log n)), equal to counting every PASS/FAIL pair."""
    pos: list[float] = []
    neg: list[float] = []
    unscored = 0
    for score, label in scores:
        if score is None:
            unscored += 1
        elif label is Outcome.PASS:
            pos.append(score)
        else:
            neg.append(score)
    if not pos or not neg:
        return AucResult(auc=None, n_pass=len(pos), n_fail=len(neg), n_unscored=unscored)
    ranks = _midranks(pos + neg)
    rank_sum_pos = sum(ranks[: len(pos)])
    u = rank_sum_pos - len(pos) * (len(pos) + 1) / 2
    return AucResult(auc=u / (len(pos) * len(neg)), n_pass=len(pos), n_fail=len(neg),
                     n_unscored=unscored)


def _midranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mid = (i + j) / 2 + 1  # ranks are 1-based
        for k in range(i, j + 1):
            ranks[order[k]] = mid
        i = j + 1
    return ranks


@dataclass(frozen=True)
class PairRun:
    """One run as the pair analysis needs it."""

    case_id: str
    task: str
    model: str | None
    with_skills: bool
    outcome: Outcome
    score: float | None


class Pair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    without_case: str
    with_case: str
    transition: str  # "FAIL→PASS", ...
    without_score: float
    with_score: float
    change: float


class TransitionSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    median_change: float | None
    share_improved: float | None  # change > margin
    share_regressed: float | None  # change < -margin


class PairAnalysis(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    margin: float
    n_pairs: int
    n_unmatched: int  # runs left without a partner (or without a score)
    transitions: dict[str, TransitionSummary]
    pairs: list[Pair] = Field(default_factory=list)


def _transition(before: Outcome, after: Outcome) -> str:
    return f"{before.value.upper()}→{after.value.upper()}"


def match_pairs(runs: Sequence[PairRun]) -> tuple[list[Pair], int]:
    """Pairs of (without, with) runs on the same task and model, matched in case-id order.

    Returns the pairs and the number of runs left unmatched; runs without a score are unmatched,
    since a change cannot be computed for them."""
    groups: dict[tuple[str, str], tuple[list[PairRun], list[PairRun]]] = defaultdict(
        lambda: ([], [])
    )
    unmatched = 0
    for run in runs:
        if run.score is None:
            unmatched += 1
            continue
        without, with_ = groups[(run.task, run.model or "")]
        (with_ if run.with_skills else without).append(run)
    pairs: list[Pair] = []
    for key in sorted(groups):
        without, with_ = (sorted(g, key=lambda r: r.case_id) for g in groups[key])
        unmatched += abs(len(without) - len(with_))
        for a, b in zip(without, with_, strict=False):
            assert a.score is not None and b.score is not None  # filtered above
            pairs.append(Pair(task=a.task, without_case=a.case_id, with_case=b.case_id,
                              transition=_transition(a.outcome, b.outcome),
                              without_score=a.score, with_score=b.score,
                              change=b.score - a.score))
    return pairs, unmatched


def pair_analysis(runs: Sequence[PairRun], margin: float = PAIR_MARGIN) -> PairAnalysis:
    pairs, unmatched = match_pairs(runs)
    by_transition: dict[str, list[float]] = defaultdict(list)
    for p in pairs:
        by_transition[p.transition].append(p.change)
    summaries: dict[str, TransitionSummary] = {}
    for name in ("FAIL→PASS", "PASS→FAIL", "FAIL→FAIL", "PASS→PASS"):
        changes = by_transition.get(name, [])
        n = len(changes)
        summaries[name] = TransitionSummary(
            n=n,
            median_change=statistics.median(changes) if changes else None,
            share_improved=sum(c > margin for c in changes) / n if n else None,
            share_regressed=sum(c < -margin for c in changes) / n if n else None,
        )
    return PairAnalysis(margin=margin, n_pairs=len(pairs), n_unmatched=unmatched,
                        transitions=summaries, pairs=pairs)


class HumanPreference(BaseModel):
    """One line of a human preference file: which of two runs made more progress."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    a: str  # case id
    b: str  # case id
    preferred: str = Field(pattern=r"^(a|b|tie)$")


class HumanAgreement(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    agreement: float | None
    n_pairs: int  # pairs used (human tie and unscored runs excluded)
    n_human_ties: int
    n_missing: int  # pairs naming a case without a score


def human_agreement(
    preferences: Sequence[HumanPreference], scores: dict[str, float | None]
) -> HumanAgreement:
    agree = 0.0
    used = ties = missing = 0
    for pref in preferences:
        if pref.preferred == "tie":
            ties += 1
            continue
        sa, sb = scores.get(pref.a), scores.get(pref.b)
        if sa is None or sb is None:
            missing += 1
            continue
        used += 1
        if sa == sb:
            agree += 0.5
        elif (sa > sb) == (pref.preferred == "a"):
            agree += 1.0
    return HumanAgreement(agreement=agree / used if used else None, n_pairs=used,
                          n_human_ties=ties, n_missing=missing)


class PerturbRates(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int  # re-scored judgments (errors excluded)
    n_errors: int
    share_no: float | None
    share_no_or_abstain: float | None


def perturbation_rates(afters: Sequence[Label | None]) -> PerturbRates:
    """Share of perturbed Yes judgments that turned No (or No or Abstain); failed re-scores
    (None) are counted apart and left out of the shares."""
    done = [a for a in afters if a is not None]
    n = len(done)
    no = sum(a is Label.NO for a in done)
    abstain = sum(a is Label.ABSTAIN for a in done)
    return PerturbRates(n=n, n_errors=len(afters) - n,
                        share_no=no / n if n else None,
                        share_no_or_abstain=(no + abstain) / n if n else None)
