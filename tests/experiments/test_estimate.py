"""The estimate's arithmetic: prompt-sized one-call judges, the stated agent model, earlier
cases, prices by model name without the provider prefix."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from judge_runner.cases import Dataset, estimate_tokens
from judge_runner.checklist.evidence import load_log
from judge_runner.checklist.models import write_checklist
from judge_runner.checklist.score import render_log
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.experiments.estimate import (
    INPUT_HIGH,
    INPUT_LOW,
    OUTPUT_LOW,
    agent_tokens,
    call_cost,
    estimate_calls,
    estimate_row,
    from_earlier,
)
from judge_runner.experiments.plan import AgentModel, Plan, Row
from judge_runner.judges import AgentShape, Call, CaseCalls, JudgeOptions, case_calls
from judge_runner.models import ModelPrice, PriceTable
from tests.casebuilder import summing_dataset
from tests.checklist.helpers import good_items, make_checklist, write_runs
from tests.conftest import REPO

PRICES = PriceTable(models={"m": ModelPrice(input=2.0, cache_write=0.0, cache_read=0.0,
                                            output=10.0)})


def test_prices_are_found_without_the_provider_prefix() -> None:
    assert call_cost(PRICES, "openai:m", 1_000_000, 100_000) == (3.0, True)
    assert call_cost(PRICES, "m", 0, 0) == (0.0, True)
    assert call_cost(PRICES, "openai:other", 1_000_000, 0) == (0.0, False)


def test_one_call_range_around_the_rendered_prompt() -> None:
    unpriced: set[str] = set()
    est = estimate_calls(CaseCalls((Call("m", 1000, 300), Call("x", 10, 20))), AgentModel(),
                         PRICES, unpriced)
    assert (est.input.low, est.input.high) == (1010 * INPUT_LOW, 1010 * INPUT_HIGH)
    assert (est.output.low, est.output.high) == (OUTPUT_LOW + min(OUTPUT_LOW, 20), 320)
    assert est.cost.high == (1000 * INPUT_HIGH * 2.0 + 300 * 10.0) / 1e6
    assert unpriced == {"x"}


def test_agent_sessions_grow_by_turn_up_to_the_context_window() -> None:
    shape = AgentShape("m", first_prompt_tokens=1000, max_turns=10, max_output_tokens=500,
                       max_context_tokens=2000)
    assert agent_tokens(shape, 4, 500) == 1000 + 1500 + 2000 + 2000
    stated = AgentModel(turns_low=3, growth_tokens=500, output_low=100)
    est = estimate_calls(CaseCalls(agent=shape), stated, PRICES, set())
    assert est.input.low == agent_tokens(shape, 3, 500) * INPUT_LOW
    assert est.input.high == agent_tokens(shape, 10, 500) * INPUT_HIGH
    assert (est.output.low, est.output.high) == (300, 5000)
    staged = estimate_calls(CaseCalls(agent=shape, optional=True), stated, PRICES, set())
    assert staged.input.low == staged.cost.low == 0.0 and staged.input.high == est.input.high
    voted = estimate_calls(CaseCalls(agent=AgentShape("m", 1000, 10, 500, 2000, sessions=3)),
                           stated, PRICES, set())
    assert (voted.input.high, voted.output.high) == (3 * est.input.high, 3 * est.output.high)
    assert voted.cost.high == 3 * est.cost.high


def test_earlier_cases_give_the_range_and_errors_do_not_count() -> None:
    def v(i: int, decision: Decision, prompt: int, out: int, usd: float) -> Verdict:
        return Verdict(case_id=f"c{i}", judge="agent", decision=decision,
                       usage=Usage(input_tokens=prompt, output_tokens=out, cost_usd=usd))

    assert from_earlier([v(0, Decision.ERROR, 5, 5, 5.0)]) is None
    est = from_earlier([v(0, Decision.PASS, 100, 10, 0.5), v(1, Decision.FAIL, 300, 30, 1.5),
                        v(2, Decision.ERROR, 9999, 9999, 99.0)])
    assert est is not None
    assert (est.input.low, est.input.high, est.output.high, est.cost.high) == (100, 300, 30, 1.5)


def test_case_calls_of_each_judge(tmp_path: Path) -> None:
    ds = summing_dataset(tmp_path / "ds", {"c1": 42}, filler_steps=40)
    case = ds.case(ds.case_ids()[0])
    assert case_calls("rules", JudgeOptions(), case) == CaseCalls()
    direct = case_calls("direct", JudgeOptions(model="m"), case)
    assert direct is not None and len(direct.calls) == 1 and direct.calls[0].prompt_tokens > 100
    small = case_calls("direct", JudgeOptions(model="m", extra={"max_prompt_tokens": 1500}), case)
    assert small is not None and small.calls[0].prompt_tokens < direct.calls[0].prompt_tokens
    panel = case_calls("multi", JudgeOptions(models=["a", "b", "c"]), case)
    assert panel is not None and [c.model for c in panel.calls] == ["a", "b", "c"]
    rubric = case_calls("rubric", JudgeOptions(model="m"), case)
    assert rubric is not None and len(rubric.calls) == 2
    graded = case_calls("rubric", JudgeOptions(model="m", extra={
        "annotators": 3, "examples": str(ds.root)}), case)
    assert graded is not None and graded.calls == (rubric.calls[0], *(rubric.calls[1],) * 3)
    agent = case_calls("agent", JudgeOptions(model="m", skill=REPO / "judgeskills" / "v1",
                                             extra={"max_turns": 7}), case)
    assert agent is not None and agent.agent is not None and agent.agent.max_turns == 7
    bare = case_calls("agent", JudgeOptions(model="m", skill=REPO / "judgeskills" / "v1"), case)
    assert bare is not None and bare.agent is not None
    voted = case_calls("agent", JudgeOptions(model="m", skill=REPO / "judgeskills" / "v1", extra={
        "sessions": 2, "examples": str(ds.root)}), case)
    assert voted is not None and voted.agent is not None and voted.agent.sessions == 2
    assert bare.agent.sessions == 1
    assert case_calls("tests.runs.scripted_judge:make_judge", JudgeOptions(), case) is None


def test_case_calls_of_the_checklist_judge(tmp_path: Path) -> None:
    case = Dataset(write_runs(tmp_path / "ds")).case("c-without")
    folder = tmp_path / "checklists"
    write_checklist(folder, make_checklist(good_items()))

    def calls(model: str | None = "m", checklists: Path | None = folder) -> CaseCalls | None:
        extra: dict[str, JsonValue] = {"checklists": str(checklists)} if checklists else {}
        return case_calls("checklist", JudgeOptions(model=model, extra=extra), case)

    sized = calls()
    assert sized is not None and sized.agent is None and len(sized.calls) == 1
    call = sized.calls[0]
    assert (call.model, call.max_output_tokens) == ("m", 8192)
    # the two items without a mechanical check, and the whole rendered log
    assert call.prompt_tokens > estimate_tokens(render_log(load_log(case)))
    assert calls(model="offline") == CaseCalls()  # mechanical items only: no model call
    empty = tmp_path / "none"
    empty.mkdir()
    assert calls(checklists=empty) == CaseCalls()  # no checklist for the task: an error verdict
    mechanical = tmp_path / "mechanical"
    write_checklist(mechanical, make_checklist([i for i in good_items() if i.check]))
    assert calls(checklists=mechanical) == CaseCalls()
    assert calls(checklists=None) is None and calls(model=None) is None  # cannot be built


def test_a_row_names_every_basis_its_cases_were_estimated_on(tmp_path: Path) -> None:
    ds = summing_dataset(tmp_path / "ds", {"c1": 42, "c2": 7, "c3": 5}, filler_steps=5)
    cases: dict[str, object] = {c: ds.case(c) for c in ds.case_ids()}
    row = Row(name="direct", judge="direct", model="m")
    plan = Plan(name="p", dataset=ds.root, rows=[row])
    options = JudgeOptions(model="m")
    whole = estimate_row(plan, row, options, cases, {}, None, PRICES)
    assert whole.basis == "prompts"
    broken = ds.case_ids()[-1]
    (ds.cases_dir / broken / "case.json").write_text("{not json")
    cases = {c: ds.case(c) for c in ds.case_ids()}  # read afresh
    mixed = estimate_row(plan, row, options, cases, {}, None, PRICES)
    # Whichever case comes last, the two cases sized from their prompts are not hidden.
    assert mixed.basis == "prompts: 2 cases; unreadable case, no call: 1 case"
    assert mixed.per_case_usd[broken] == 0.0
    done = {c: Verdict(case_id=c, judge="direct", decision=Decision.PASS) for c in cases}
    assert estimate_row(plan, row, options, cases, done, None, PRICES).basis == (
        "nothing left to judge")
