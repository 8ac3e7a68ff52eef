"""Paired comparison of two runs on the cases they share: McNemar's test, domain deltas, changes.

Only cases that are labeled and decided (pass or fail) in *both* runs enter the test; cases where
either run errored or abstained are counted in `n_excluded` and listed with the changes, because
an error is neither right nor wrong.

McNemar: b = A right and B wrong, c = A wrong and B right. The exact two-sided p-value is
min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(b + c, 1/2); the mid-p value subtracts P(X = min(b, c))
once. With no discordant pair both are 1.0 (no evidence of a difference).
"""

from __future__ import annotations

from math import comb

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Decision, Label
from judge_runner.runs.records import CaseRecord


class McNemar(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    b: int  # A right, B wrong
    c: int  # A wrong, B right
    p_exact: float
    p_mid: float


def mcnemar(b: int, c: int) -> McNemar:
    """Exact and mid-p McNemar tests from the two discordant counts."""
    n, k = b + c, min(b, c)
    if n == 0:
        return McNemar(b=b, c=c, p_exact=1.0, p_mid=1.0)
    total = 2**n
    tail = sum(comb(n, i) for i in range(k + 1))
    p_exact = min(1.0, 2 * tail / total)
    p_mid = min(1.0, (2 * tail - comb(n, k)) / total)
    return McNemar(b=b, c=c, p_exact=p_exact, p_mid=p_mid)


class DomainDelta(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int
    accuracy_a: float
    accuracy_b: float
    delta: float  # B − A


class ChangedCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    domain: str | None
    label: Label | None
    decision_a: Decision
    decision_b: Decision
    effect: str  # "fixed" | "broken" | "changed" (neither or both right, or undecided)


class Comparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_a: str
    run_b: str
    n_shared: int
    n_paired: int  # labeled and decided in both runs
    n_excluded: int
    only_a: int
    only_b: int
    accuracy_a: float
    accuracy_b: float
    test: McNemar
    per_domain: dict[str, DomainDelta]
    changed: list[ChangedCase]


def compare_records(
    a: list[CaseRecord], b: list[CaseRecord], name_a: str, name_b: str
) -> Comparison:
    by_a = {r.case_id: r for r in a}
    by_b = {r.case_id: r for r in b}
    shared = sorted(set(by_a) & set(by_b))
    paired = [(by_a[c], by_b[c]) for c in shared
              if by_a[c].correct is not None and by_b[c].correct is not None]
    right_a = sum(1 for x, _ in paired if x.correct)
    right_b = sum(1 for _, y in paired if y.correct)
    discordant_b = sum(1 for x, y in paired if x.correct and not y.correct)
    discordant_c = sum(1 for x, y in paired if not x.correct and y.correct)
    return Comparison(
        run_a=name_a, run_b=name_b, n_shared=len(shared), n_paired=len(paired),
        n_excluded=len(shared) - len(paired),
        only_a=len(set(by_a) - set(by_b)), only_b=len(set(by_b) - set(by_a)),
        accuracy_a=right_a / len(paired) if paired else 0.0,
        accuracy_b=right_b / len(paired) if paired else 0.0,
        test=mcnemar(discordant_b, discordant_c),
        per_domain=_domain_deltas(paired),
        changed=[_change(by_a[c], by_b[c]) for c in shared
                 if by_a[c].decision is not by_b[c].decision],
    )


def _domain_deltas(paired: list[tuple[CaseRecord, CaseRecord]]) -> dict[str, DomainDelta]:
    groups: dict[str, list[tuple[CaseRecord, CaseRecord]]] = {}
    for x, y in paired:
        groups.setdefault(x.domain or "unknown", []).append((x, y))
    out = {}
    for name in sorted(groups):
        group = groups[name]
        acc_a = sum(1 for x, _ in group if x.correct) / len(group)
        acc_b = sum(1 for _, y in group if y.correct) / len(group)
        out[name] = DomainDelta(n=len(group), accuracy_a=acc_a, accuracy_b=acc_b,
                                delta=acc_b - acc_a)
    return out


def _change(x: CaseRecord, y: CaseRecord) -> ChangedCase:
    if x.correct is False and y.correct is True:
        effect = "fixed"
    elif x.correct is True and y.correct is False:
        effect = "broken"
    else:
        effect = "changed"
    return ChangedCase(case_id=x.case_id, domain=x.domain, label=x.label,
                       decision_a=x.decision, decision_b=y.decision, effect=effect)
