"""The outcome step and per-case scores, checked against values worked out by hand."""

from __future__ import annotations

import pytest

from judge_runner.cases import Label as Outcome
from judge_runner.checklist.models import Checklist, ItemJudgment, JudgmentSource, Label
from judge_runner.checklist.outcome import ENDPOINT_ID, OutcomeError, apply_outcome
from tests.checklist.helpers import good_items, make_checklist

Y, N, A = Label.YES, Label.NO, Label.ABSTAIN


def checklist() -> Checklist:
    # C01, C02 assertion; C03 generated with weight 2; C04 judge (claim-versus-trace)
    items = good_items()
    items[2] = items[2].model_copy(update={"weight": 2.0})
    return make_checklist(items)


def judged(*labels: Label) -> list[ItemJudgment]:
    return [ItemJudgment(item_id=f"C{n:02d}", label=lab, source=JudgmentSource.MODEL)
            for n, lab in enumerate(labels, start=1)]


def test_pass_turns_assertion_items_yes() -> None:
    s = apply_outcome(checklist(), judged(N, A, Y, N), Outcome.PASS, case_id="a")
    assert [i.final for i in s.items] == [Y, Y, Y, N]
    assert [i.overridden for i in s.items] == [True, True, False, False]
    assert (s.yes, s.no, s.abstain) == (3, 1, 0)
    assert s.partial_credit == pytest.approx(3 / 4)
    assert s.weighted_credit == pytest.approx(4 / 5)  # (1 + 1 + 2) / (1 + 1 + 2 + 1)
    assert s.raw_credit == pytest.approx(1 / 3)  # judged: one Yes, two No
    assert s.coverage == pytest.approx(3 / 4)  # before the outcome step: C02 abstained
    assert (s.perfect, s.perfect_with_endpoint) == (False, False)
    assert s.stopped_at == "C04"
    assert s.gated_credit == pytest.approx(3 / 4)


def test_fail_keeps_judgments_and_adds_endpoint() -> None:
    s = apply_outcome(checklist(), judged(Y, N, Y, A), Outcome.FAIL, case_id="b")
    assert [i.item_id for i in s.items] == ["C01", "C02", "C03", "C04", ENDPOINT_ID]
    assert [i.final for i in s.items] == [Y, N, Y, A, N]
    assert not any(i.overridden for i in s.items)
    assert (s.yes, s.no, s.abstain) == (2, 2, 1)
    assert s.partial_credit == pytest.approx(0.5)
    assert s.weighted_credit == pytest.approx(3 / 5)  # (1 + 2) / (1 + 1 + 2 + 1)
    assert s.coverage == pytest.approx(3 / 4)
    assert s.perfect is False
    # ordered gating: C02 fails, so C03's Yes earns nothing
    assert [i.credited for i in s.items] == [True, False, False, False, False]
    assert s.stopped_at == "C02"
    assert s.gated_credit == pytest.approx(1 / 4)


def test_fail_with_clean_items_is_perfect_only_without_endpoint() -> None:
    s = apply_outcome(checklist(), judged(Y, Y, Y, A), Outcome.FAIL, case_id="c")
    assert s.partial_credit == pytest.approx(3 / 4)
    assert (s.perfect, s.perfect_with_endpoint) == (True, False)
    assert s.stopped_at == ENDPOINT_ID
    assert s.gated_credit == pytest.approx(3 / 4)


def test_pass_all_yes_is_perfect_both_ways() -> None:
    s = apply_outcome(checklist(), judged(Y, Y, Y, Y), Outcome.PASS, case_id="p")
    assert (s.partial_credit, s.gated_credit, s.stopped_at) == (1.0, 1.0, None)
    assert (s.perfect, s.perfect_with_endpoint) == (True, True)


def test_unlabelled_all_abstain_has_no_credit() -> None:
    s = apply_outcome(checklist(), judged(A, A, A, A), None, case_id="d")
    assert s.partial_credit is None and s.gated_credit is None and s.weighted_credit is None
    assert s.coverage == 0.0
    assert s.stopped_at is None
    assert len(s.items) == 4  # no endpoint without an outcome


def test_abstain_blocking_variant() -> None:
    labels = judged(A, Y, Y, Y)
    assert apply_outcome(checklist(), labels, None, case_id="e").gated_credit == 1.0
    blocked = apply_outcome(checklist(), labels, None, case_id="e", abstain_blocks=True)
    assert blocked.stopped_at == "C01"
    assert blocked.gated_credit == 0.0


def test_mismatched_judgments_are_refused() -> None:
    with pytest.raises(OutcomeError, match="missing"):
        apply_outcome(checklist(), judged(Y, Y, Y), None, case_id="f")
    with pytest.raises(OutcomeError, match="twice"):
        apply_outcome(checklist(), [*judged(Y, Y, Y, Y), *judged(Y)], None, case_id="g")
