"""McNemar against known tables; paired comparison of two real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.judges.registry import JudgeOptions, build_judge
from judge_runner.runs.compare import compare_records, mcnemar
from judge_runner.runs.runner import run_eval
from tests.casebuilder import answer_dataset, mixed_answers


def test_mcnemar_known_table() -> None:
    # Fagerland, Lydersen & Laake (2013), b=1, c=7: exact p = 0.070, mid-p = 0.039
    t = mcnemar(1, 7)
    assert t.p_exact == pytest.approx(18 / 256)
    assert t.p_mid == pytest.approx(10 / 256)
    assert round(t.p_exact, 3) == 0.070 and round(t.p_mid, 3) == 0.039


def test_mcnemar_other_tables() -> None:
    t = mcnemar(12, 2)  # n = 14, k = 2: tail = 1 + 14 + 91
    assert t.p_exact == pytest.approx(2 * 106 / 2**14)
    assert t.p_mid == pytest.approx((2 * 106 - 91) / 2**14)
    assert mcnemar(5, 5).p_exact == 1.0  # symmetric: capped at 1
    assert mcnemar(0, 0).p_exact == 1.0 and mcnemar(0, 0).p_mid == 1.0
    assert mcnemar(3, 9).p_exact == mcnemar(9, 3).p_exact


def test_compare_two_runs(tmp_path: Path) -> None:
    specs = mixed_answers(9)  # cases 2, 5, 8 are answered wrong
    ds = Dataset(answer_dataset(tmp_path / "ds", specs))
    judge_a = build_judge("tests.runs.scripted_judge:make_judge", JudgeOptions(extra={"tag": "a"}))
    a = run_eval(judge_a, ds, ds.case_ids(), tmp_path / "a", progress=False, write_reports=False)
    # B: fix case 2, break case 0, make case 1 an abstention
    for case_id, answer in (("case-002", "fail"), ("case-000", "fail"), ("case-001", "abstain")):
        (ds.cases_dir / case_id / "artifacts" / "answer.txt").write_text(answer)
    judge_b = build_judge("tests.runs.scripted_judge:make_judge", JudgeOptions(extra={"tag": "b"}))
    b = run_eval(judge_b, ds, ds.case_ids(), tmp_path / "b", progress=False, write_reports=False)
    c = compare_records(a.records, b.records, "a", "b")
    assert (c.n_shared, c.n_paired, c.n_excluded) == (9, 8, 1)
    assert (c.test.b, c.test.c) == (1, 1)
    effects = {ch.case_id: ch.effect for ch in c.changed}
    assert effects == {"case-000": "broken", "case-001": "changed", "case-002": "fixed"}
    assert c.accuracy_a == pytest.approx(5 / 8) and c.accuracy_b == pytest.approx(5 / 8)
    assert set(c.per_domain) == {"energy", "finance", "robotics"}
