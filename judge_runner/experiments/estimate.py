"""What a plan will cost before anything is judged: tokens and dollars per row, as a range.

No model is called. Per case and row:

- one-call judges (direct, rubric, multi's members, the checklist's item judge): each call's
  prompt is rendered as the judge would send it, by the judge's own options
  (`judges.CallsSized`: system prompt, the case digest within the row's prompt budget or the
  checklist's items and rendered log, the tool definition) and sized at 4 characters a token;
  the range is 0.8x..1.5x of that size for the input (tokenizers differ from the estimate) and
  `OUTPUT_LOW`..max_output_tokens for the answer. A repair turn (an unusable first answer sent
  back once) is not in the range.
- the agent judge: from the row's finished cases when its run directory holds some (their
  smallest..largest per-case usage, for each case still to judge), else from the plan's stated
  model (`agent_estimate`): turns_low..max_turns calls, the first of the rendered system prompt,
  tools and case overview, each later one `growth_tokens` larger, capped at the context window.
- the rules judge: nothing.
- a judge of unknown shape: its finished cases when it has some, else unknown (counted as 0).

Dollars come from the price table (`models/prices.toml`, extended by $JUDGE_RUNNER_PRICES), by
the model name without its provider prefix, all input at the uncached input price; an unpriced
model costs 0 and is named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.core import Decision, Verdict
from judge_runner.experiments.plan import AgentModel, Plan, Row
from judge_runner.judges import AgentShape, CaseCalls, JudgeOptions, case_calls
from judge_runner.models import PriceTable

INPUT_LOW, INPUT_HIGH = 0.8, 1.5
OUTPUT_LOW = 16  # a decision and a one-line rationale


class Range(BaseModel):
    model_config = ConfigDict(extra="forbid")

    low: float = 0.0
    high: float = 0.0

    def __add__(self, other: Range) -> Range:
        return Range(low=self.low + other.low, high=self.high + other.high)

    def scaled(self, k: float) -> Range:
        return Range(low=self.low * k, high=self.high * k)


@dataclass
class CaseEstimate:
    input: Range = field(default_factory=Range)
    output: Range = field(default_factory=Range)
    cost: Range = field(default_factory=Range)

    def __add__(self, other: CaseEstimate) -> CaseEstimate:
        return CaseEstimate(self.input + other.input, self.output + other.output,
                            self.cost + other.cost)


class RowEstimate(BaseModel):
    """A row's cases, what its store already holds, and the estimate for the rest."""

    model_config = ConfigDict(extra="forbid")

    row: str
    judge: str
    run_dir: str | None
    cases: int
    done: int  # verdicts the row's run directory already holds (errors included)
    todo: int
    basis: str  # how the estimate was made
    input_tokens: Range
    output_tokens: Range
    cost_usd: Range
    spent_usd: float = 0.0  # by the verdicts already stored
    unpriced: list[str] = Field(default_factory=list)
    note: str | None = None  # why the row's run directory is not known (its judge not built)
    per_case_usd: dict[str, float] = Field(default_factory=dict, exclude=True)  # high end


class PlanEstimate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str
    budget_usd: float | None
    rows: list[RowEstimate]
    input_tokens: Range
    output_tokens: Range
    cost_usd: Range
    spent_usd: float


def call_cost(prices: PriceTable, model: str, input_tokens: float,
              output_tokens: float) -> tuple[float, bool]:
    """(USD, priced) of tokens of `model` (its provider prefix removed)."""
    from judge_runner.models import split_model

    price = prices.lookup(split_model(model)[1]) if model else None
    if price is None:
        return 0.0, False
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000, True


def agent_tokens(shape: AgentShape, turns: int, growth: int) -> int:
    """Input tokens of a session of `turns` calls whose context grows by `growth` a call."""
    return sum(min(shape.first_prompt_tokens + t * growth, shape.max_context_tokens)
               for t in range(turns))


def estimate_calls(work: CaseCalls, stated: AgentModel, prices: PriceTable,
                   unpriced: set[str]) -> CaseEstimate:
    """The range of one case's calls (see the module docstring)."""
    total = CaseEstimate()
    for call in work.calls:
        one = CaseEstimate(
            Range(low=call.prompt_tokens * INPUT_LOW, high=call.prompt_tokens * INPUT_HIGH),
            Range(low=min(OUTPUT_LOW, call.max_output_tokens), high=call.max_output_tokens))
        total = total + _priced(one, call.model, prices, unpriced)
    if work.agent is not None:
        shape = work.agent
        turns_low = min(stated.turns_low, shape.max_turns)
        one = CaseEstimate(
            Range(low=agent_tokens(shape, turns_low, stated.growth_tokens) * INPUT_LOW,
                  high=agent_tokens(shape, shape.max_turns, stated.growth_tokens) * INPUT_HIGH),
            Range(low=turns_low * min(stated.output_low, shape.max_output_tokens),
                  high=shape.max_turns * shape.max_output_tokens))
        one = _priced(one, shape.model, prices, unpriced)
        for _ in range(shape.sessions):  # sessions that vote: each one a whole session
            total = total + one
    if work.optional:  # a staged judge may decide before any of these calls
        total.input.low = total.output.low = total.cost.low = 0.0
    return total


def _priced(est: CaseEstimate, model: str, prices: PriceTable, unpriced: set[str]) -> CaseEstimate:
    low, priced = call_cost(prices, model, est.input.low, est.output.low)
    high, _ = call_cost(prices, model, est.input.high, est.output.high)
    if not priced and model:
        unpriced.add(model)
    est.cost = Range(low=low, high=high)
    return est


def from_earlier(verdicts: list[Verdict]) -> CaseEstimate | None:
    """Per-case range from finished (non-error) verdicts of the row; None when there are none."""
    usable = [v for v in verdicts if v.decision is not Decision.ERROR]
    if not usable:
        return None
    prompts = [v.usage.prompt_tokens for v in usable]
    outputs = [v.usage.output_tokens for v in usable]
    costs = [v.usage.cost_usd for v in usable]
    return CaseEstimate(Range(low=min(prompts), high=max(prompts)),
                        Range(low=min(outputs), high=max(outputs)),
                        Range(low=min(costs), high=max(costs)))


def estimate_row(plan: Plan, row: Row, options: JudgeOptions, dataset_cases: dict[str, object],
                 prior: dict[str, Verdict], run_dir: Path | None,
                 prices: PriceTable) -> RowEstimate:
    """The estimate of `row` over `dataset_cases` (case id -> CasePackage) given the verdicts
    its run directory already holds (`prior`)."""
    from judge_runner.cases import CasePackage

    todo = [c for c in dataset_cases if c not in prior]
    unpriced: set[str] = set()
    earlier = from_earlier(list(prior.values()))
    per_case: dict[str, CaseEstimate] = {}
    bases: Counter[str] = Counter()  # how each case still to judge was estimated
    decided = sum(1 for v in prior.values() if v.decision.is_decided)
    for case_id in todo:
        case = dataset_cases[case_id]
        assert isinstance(case, CasePackage)
        try:
            work = case_calls(row.judge, options, case)
        except (OSError, ValueError):
            per_case[case_id] = CaseEstimate()  # an unreadable case is an error verdict, no call
            bases["unreadable case, no call"] += 1
            continue
        if work is None or (work.agent is not None and earlier is not None):
            if earlier is None:
                bases["unknown (no finished case yet)"] += 1
                per_case[case_id] = CaseEstimate()
                continue
            bases[f"earlier cases ({decided})"] += 1
            per_case[case_id] = earlier
            continue
        if work.agent is not None:
            bases["agent model"] += 1
        elif not work.calls:
            bases["no model calls"] += 1
        else:
            bases["prompts"] += 1
        per_case[case_id] = estimate_calls(work, plan.agent_estimate, prices, unpriced)
    basis = _describe(bases)
    total = sum(per_case.values(), CaseEstimate())
    return RowEstimate(
        row=row.name, judge=row.judge, run_dir=str(run_dir) if run_dir else None,
        cases=len(dataset_cases), done=len(prior), todo=len(todo), basis=basis,
        input_tokens=total.input, output_tokens=total.output, cost_usd=total.cost,
        spent_usd=sum(v.usage.cost_usd for v in prior.values()), unpriced=sorted(unpriced),
        per_case_usd={c: e.cost.high for c, e in per_case.items()})


def _describe(bases: Counter[str]) -> str:
    """One basis as it is; several (e.g. a few unreadable cases among the rest) each with its
    number of cases, most cases first, so no case's basis hides the others'."""
    if not bases:
        return "nothing left to judge"
    if len(bases) == 1:
        return next(iter(bases))
    ranked = sorted(bases.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{basis}: {n} case{'s' if n != 1 else ''}" for basis, n in ranked)


def total(plan: Plan, rows: list[RowEstimate]) -> PlanEstimate:
    return PlanEstimate(
        plan=plan.name, budget_usd=plan.budget_usd, rows=rows,
        input_tokens=sum((r.input_tokens for r in rows), Range()),
        output_tokens=sum((r.output_tokens for r in rows), Range()),
        cost_usd=sum((r.cost_usd for r in rows), Range()),
        spent_usd=sum(r.spent_usd for r in rows))
