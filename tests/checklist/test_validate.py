from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.checklist.models import ItemKind, Route
from judge_runner.checklist.tasks import TaskSourceError, load_task, resolve_test_ref
from judge_runner.checklist.validate import validate
from tests.checklist.helpers import good_items, item, make_checklist, write_task


@pytest.fixture()
def task_dir(tmp_path: Path) -> Path:
    return write_task(tmp_path)


def gates(task_dir: Path, items: list) -> list[tuple[str, str | None]]:  # type: ignore[type-arg]
    return [(f.gate, f.item_id) for f in validate(make_checklist(items), load_task(task_dir))]


def test_discovers_pytest_names(task_dir: Path) -> None:
    task = load_task(task_dir)
    assert task.test_names == (
        "test_outputs.py::TestValues::test_days",
        "test_outputs.py::TestValues::test_mean_temp",
        "test_outputs.py::test_summary_exists",
    )
    full = "test_outputs.py::TestValues::test_days"
    assert resolve_test_ref("test_days", task.test_names) == full
    assert resolve_test_ref("helper", task.test_names) is None


def test_good_checklist_passes(task_dir: Path) -> None:
    assert gates(task_dir, good_items()) == []


def test_task_without_verifier_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "instruction.md").write_text("do it", encoding="utf-8")
    with pytest.raises(TaskSourceError, match="tests/"):
        load_task(tmp_path / "t")


def test_quote_not_verbatim(task_dir: Path) -> None:
    items = good_items()
    items[1] = items[1].model_copy(update={"quote": "mean_temp must be rounded to 2 decimals"})
    assert gates(task_dir, items) == [("quote", "C02")]


def test_quote_missing_or_too_short(task_dir: Path) -> None:
    items = good_items()
    items[0] = items[0].model_copy(update={"quote": None})
    items[1] = items[1].model_copy(update={"quote": "the"})
    assert gates(task_dir, items) == [("quote", "C01"), ("quote", "C02")]


def test_verifier_ref_must_exist(task_dir: Path) -> None:
    items = good_items()
    items[1] = items[1].model_copy(update={"verifier_ref": "TestValues::test_median"})
    assert gates(task_dir, items) == [("verifier_ref", "C02")]


def test_assertion_route_needs_verifier_ref(task_dir: Path) -> None:
    items = good_items()
    items[2] = items[2].model_copy(update={"route": Route.ASSERTION})
    assert gates(task_dir, items) == [("verifier_ref", "C03")]


def test_duplicate_requirement(task_dir: Path) -> None:
    items = good_items()
    dup = items[0].model_copy(update={
        "id": "C05", "order": 5,
        "requirement": "the summary JSON file exists at /root/out/summary.json!",
        "verifier_ref": None, "route": Route.GENERATED,
    })
    assert gates(task_dir, [*items, dup]) == [("duplicate", "C05")]


def test_duplicate_quote_and_test(task_dir: Path) -> None:
    items = good_items()
    dup = items[1].model_copy(update={
        "id": "C05", "order": 5, "requirement": "mean_temp is a number with two decimals"})
    assert gates(task_dir, [*items, dup]) == [("duplicate", "C05")]


def test_duplicate_ids_and_order_gaps(task_dir: Path) -> None:
    items = good_items()
    items[3] = items[3].model_copy(update={"id": "C03", "order": 6})
    assert gates(task_dir, items) == [("ids", "C03"), ("ids", None)]


def test_item_count_bounds(task_dir: Path) -> None:
    items = good_items()
    claim = items[3].model_copy(update={"order": 2})
    assert gates(task_dir, [items[0], claim]) == [("count", None)]
    many = [item(n, requirement=f"the summary file records reading batch {n} correctly",
                 quote="Convert the sensor readings") for n in range(1, 21)]
    many.append(item(21, requirement="each final report claim has a matching trace entry",
                     kind=ItemKind.CLAIM_TRACE))
    assert gates(task_dir, many) == [("count", None)]
    at_bound = [*many[:19], many[20].model_copy(update={"order": 20})]
    assert gates(task_dir, at_bound) == []


@pytest.mark.parametrize("wording", [
    "The agent should be careful when writing the summary",
    "Try to compute mean_temp correctly",
    "Handles the readings appropriately",
    "Writes high-quality output files",
    "Summary written",  # too short to say what must hold
])
def test_vague_wording_rejected(task_dir: Path, wording: str) -> None:
    items = good_items()
    items[2] = items[2].model_copy(update={"requirement": wording})
    assert gates(task_dir, items) == [("wording", "C03")]


def test_exactly_one_claim_trace_item(task_dir: Path) -> None:
    items = good_items()
    assert gates(task_dir, items[:3]) == [("claim_trace", None)]
    second = items[3].model_copy(update={
        "id": "C05", "order": 5, "requirement": "Claims about the CSV file appear in the trace"})
    assert gates(task_dir, [*items, second]) == [("claim_trace", None)]


def test_claim_trace_item_must_be_judged(task_dir: Path) -> None:
    items = good_items()
    items[3] = items[3].model_copy(update={"route": Route.GENERATED})
    assert gates(task_dir, items) == [("claim_trace", "C04")]


def test_checklist_for_other_task(task_dir: Path) -> None:
    failures = validate(make_checklist(good_items(), task="other"), load_task(task_dir))
    assert [f.gate for f in failures] == ["task"]
    assert "other" in str(failures[0])
