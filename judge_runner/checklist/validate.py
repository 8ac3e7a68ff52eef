"""Deterministic validation gates for a checklist against its task.

Every gate is plain code over the checklist, the instruction and the verifier's test names; no
model is involved. Each failure is a `GateFailure` naming the gate, the item and what is wrong, so
a synthesizer repair turn (or a person) can fix exactly that. A checklist with any failure is not
used for scoring.

Gates:

- ``count``: the number of items is within [min_items, max_items].
- ``ids``: item ids are unique; orders are unique and run 1..n without gaps.
- ``quote``: a requirement item quotes the instruction verbatim (whitespace runs are compared as
  one space, since markdown wraps lines freely); quotes are long enough to locate something.
- ``verifier_ref``: a cited verifier test exists; assertion-route items must cite one.
- ``duplicate``: no two items state the same requirement (after normalizing case, punctuation
  and whitespace) and no two items share quote and verifier test.
- ``wording``: a requirement states something checkable about the task's result or process, not a
  disposition of the agent ("be careful", "try to be thorough").
- ``claim_trace``: exactly one item is the claim-versus-trace check, routed to the judge.
- ``weight``: weights are finite.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from judge_runner.checklist.models import Checklist, ChecklistItem, ItemKind, Route
from judge_runner.checklist.tasks import TaskSource, resolve_test_ref
from judge_runner.text import collapse_ws

MIN_ITEMS = 3
MAX_ITEMS = 20
MIN_QUOTE_CHARS = 12
MIN_REQUIREMENT_WORDS = 4

# Phrases that describe how the agent should behave rather than what must be true. An item built
# on them cannot be decided from evidence, so it would only add judge noise.
_VAGUE_PATTERNS = (
    r"\bbe (careful|thorough|diligent|cautious|mindful|attentive|precise)\b",
    r"\b(try|attempt|strive|aim) to\b",
    r"\b(do|does) (its|their|a) best\b",
    r"\bgood (practice|job|quality|work)\b",
    r"\bhigh[- ]quality\b",
    r"\b(reasonabl[ey]|appropriate(ly)?|properly|adequate(ly)?|sensibl[ey])\b",
    r"\bas (needed|necessary|appropriate)\b",
    r"\bpay attention\b",
    r"\btake care\b",
    r"\bin general\b",
)
_VAGUE = re.compile("|".join(_VAGUE_PATTERNS), re.IGNORECASE)


@dataclass(frozen=True)
class GateFailure:
    gate: str
    item_id: str | None  # None for checklist-level failures
    message: str

    def __str__(self) -> str:
        where = f"item {self.item_id}" if self.item_id else "checklist"
        return f"[{self.gate}] {where}: {self.message}"


def _normalized_requirement(text: str) -> str:
    return collapse_ws(re.sub(r"[^\w\s]", " ", text.lower()))


def validate(
    checklist: Checklist,
    task: TaskSource,
    *,
    min_items: int = MIN_ITEMS,
    max_items: int = MAX_ITEMS,
) -> list[GateFailure]:
    """All gate failures of `checklist` against `task`, in gate order then item order; empty
    means the checklist may be frozen and used."""
    failures: list[GateFailure] = []
    failures += _gate_count(checklist, min_items, max_items)
    failures += _gate_ids(checklist)
    instruction = collapse_ws(task.instruction)
    for item in checklist.ordered():
        failures += _gate_quote(item, instruction)
        failures += _gate_verifier_ref(item, task.test_names)
        failures += _gate_wording(item)
        failures += _gate_weight(item)
    failures += _gate_duplicates(checklist)
    failures += _gate_claim_trace(checklist)
    if checklist.task != task.name:
        failures.append(GateFailure(
            "task", None,
            f"checklist is for task {checklist.task!r}, validated against {task.name!r}",
        ))
    return failures


def _gate_count(checklist: Checklist, lo: int, hi: int) -> list[GateFailure]:
    n = len(checklist.items)
    if lo <= n <= hi:
        return []
    return [GateFailure("count", None, f"{n} items; between {lo} and {hi} are required")]


def _gate_ids(checklist: Checklist) -> list[GateFailure]:
    out: list[GateFailure] = []
    for item_id, n in sorted(Counter(i.id for i in checklist.items).items()):
        if n > 1:
            out.append(GateFailure("ids", item_id, f"id used by {n} items"))
    orders = sorted(i.order for i in checklist.items)
    if orders != list(range(1, len(orders) + 1)):
        out.append(GateFailure("ids", None, f"orders must run 1..{len(orders)}, got {orders}"))
    return out


def _gate_quote(item: ChecklistItem, instruction: str) -> list[GateFailure]:
    if item.quote is None:
        if item.kind is ItemKind.CLAIM_TRACE:
            return []
        return [GateFailure("quote", item.id, "no quote of the instruction")]
    quote = collapse_ws(item.quote)
    if len(quote) < MIN_QUOTE_CHARS:
        return [GateFailure(
            "quote", item.id, f"quote {item.quote!r} is shorter than {MIN_QUOTE_CHARS} characters"
        )]
    if quote not in instruction:
        return [GateFailure("quote", item.id, f"quote not found verbatim in the instruction: "
                            f"{_clip(item.quote)!r}")]
    return []


def _gate_verifier_ref(item: ChecklistItem, test_names: tuple[str, ...]) -> list[GateFailure]:
    if item.verifier_ref is None:
        if item.route is Route.ASSERTION:
            return [GateFailure(
                "verifier_ref", item.id, "assertion-route item names no verifier test"
            )]
        return []
    if resolve_test_ref(item.verifier_ref, test_names) is None:
        return [GateFailure(
            "verifier_ref", item.id,
            f"verifier test {item.verifier_ref!r} does not exist (or is ambiguous) in tests/",
        )]
    return []


def _gate_wording(item: ChecklistItem) -> list[GateFailure]:
    text = item.requirement
    match = _VAGUE.search(text)
    if match:
        return [GateFailure(
            "wording", item.id,
            f"requirement is a behaviour wish, not a checkable requirement "
            f"({match.group(0)!r} in {_clip(text)!r})",
        )]
    if len(text.split()) < MIN_REQUIREMENT_WORDS:
        return [GateFailure(
            "wording", item.id,
            f"requirement {text!r} is too short to say what must hold "
            f"(at least {MIN_REQUIREMENT_WORDS} words)",
        )]
    return []


def _gate_weight(item: ChecklistItem) -> list[GateFailure]:
    if math.isfinite(item.weight):
        return []
    return [GateFailure("weight", item.id, f"weight {item.weight} is not finite")]


def _gate_duplicates(checklist: Checklist) -> list[GateFailure]:
    out: list[GateFailure] = []
    seen_text: dict[str, str] = {}
    seen_anchor: dict[tuple[str, str], str] = {}
    for item in checklist.ordered():
        key = _normalized_requirement(item.requirement)
        if key in seen_text:
            out.append(GateFailure(
                "duplicate", item.id, f"same requirement as item {seen_text[key]}"
            ))
        else:
            seen_text[key] = item.id
        if item.quote is not None and item.verifier_ref is not None:
            anchor = (collapse_ws(item.quote), item.verifier_ref.strip())
            if anchor in seen_anchor:
                out.append(GateFailure(
                    "duplicate", item.id,
                    f"same quote and verifier test as item {seen_anchor[anchor]}",
                ))
            else:
                seen_anchor[anchor] = item.id
    return out


def _gate_claim_trace(checklist: Checklist) -> list[GateFailure]:
    claim_items = [i for i in checklist.ordered() if i.kind is ItemKind.CLAIM_TRACE]
    if len(claim_items) != 1:
        return [GateFailure(
            "claim_trace", None,
            f"exactly one claim-versus-trace item is required, found {len(claim_items)}",
        )]
    item = claim_items[0]
    if item.route is not Route.JUDGE or item.check is not None:
        return [GateFailure(
            "claim_trace", item.id,
            "the claim-versus-trace item must use the judge route and carry no mechanical check",
        )]
    return []


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
