"""`bench gate`: label quotas, family coverage, determinism, baseline fit, impossible requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import Dataset, Domain, Label
from judge_runner.judges.registry import JudgeOptions, build_judge
from judge_runner.runs.metrics import compute_metrics
from judge_runner.runs.runner import run_eval
from judge_runner.splits.build import SplitError, build_splits
from judge_runner.splits.gate import build_gate
from judge_runner.splits.manifest import PoolCase, read_split
from tests.casebuilder import AnswerCase, answer_dataset


def test_gate_on_real_dev_split(real_dataset: Path, tmp_path: Path) -> None:
    built = build_splits(Dataset(real_dataset), tmp_path, seed=0, eval_size=4)
    gate = build_gate(built.dev, tmp_path, size=4, n_fail=3, n_pass=1, seed=0)
    ids = read_split(tmp_path / "gate.txt")
    assert len(ids) == 4 and set(ids) <= {c.case_id for c in built.dev}
    assert gate.counts.by_label == {"fail": 3, "pass": 1}
    assert gate.families_covered == gate.families_in_pool == 3 and not gate.uncovered_families
    first = (tmp_path / "gate.txt").read_bytes(), (tmp_path / "gate.json").read_bytes()
    build_gate(built.dev, tmp_path, size=4, n_fail=3, n_pass=1, seed=0)
    assert ((tmp_path / "gate.txt").read_bytes(), (tmp_path / "gate.json").read_bytes()) == first
    with pytest.raises(SplitError, match="3 pass and 3 fail cases"):
        build_gate(built.dev, tmp_path / "x")  # the default 27 + 9 cannot fit in 6 cases
    with pytest.raises(SplitError, match="must equal"):
        build_gate(built.dev, tmp_path / "x", size=5, n_fail=3, n_pass=1)


def _pool(n_tasks: int, per_task: int = 4) -> list[PoolCase]:
    # every task: one pass, the rest fail
    return [PoolCase(case_id=f"t{t:02d}-{k}", task=f"t{t:02d}", domain=f"d{t % 5}",
                     label="pass" if k == 0 else "fail")
            for t in range(n_tasks) for k in range(per_task)]


@pytest.mark.parametrize(("n_tasks", "covered"), [(20, 20), (36, 36), (50, 36)])
def test_default_gate_covers_every_family_that_fits(
    n_tasks: int, covered: int, tmp_path: Path
) -> None:
    gate = build_gate(_pool(n_tasks), tmp_path, seed=1)
    assert gate.counts.n == 36 and gate.counts.by_label == {"fail": 27, "pass": 9}
    assert gate.families_covered == covered
    # no family dominates: the fill goes least-used first
    assert max(sum(v.values()) for v in gate.counts.by_task.values()) <= -(-36 // covered)


def test_seed_changes_the_gate(tmp_path: Path) -> None:
    gates = {build_gate(_pool(40), tmp_path, seed=s).counts.by_task.__repr__() for s in range(5)}
    assert len(gates) > 1


def test_baseline_picks_the_closest_subset(tmp_path: Path) -> None:
    specs = []
    for t in range(30):
        for k in range(4):
            label = Label.PASS if k < 2 else Label.FAIL
            # the scripted baseline is right on tasks t%3 != 0 and wrong on the others
            wrong = t % 3 == 0 and k in (0, 2)
            answer = ("fail" if label is Label.PASS else "pass") if wrong else label.value
            specs.append(AnswerCase(f"t{t:02d}-{k}", f"t{t:02d}", Domain.FINANCE, label, answer))
    ds = Dataset(answer_dataset(tmp_path / "ds", specs))
    dev = [PoolCase(case_id=s.case_id, task=s.task, domain="finance", label=s.label.value)
           for s in specs if s.label is not None]
    judge = build_judge("tests.runs.scripted_judge:make_judge", JudgeOptions())
    run = run_eval(judge, ds, ds.case_ids(), tmp_path / "run", progress=False,
                   write_reports=False)
    gate = build_gate(dev, tmp_path / "bench", seed=0, baseline=run.records,
                      baseline_name="run", candidates=300)
    fit = gate.baseline
    assert fit is not None and fit.candidates == 300
    records = {r.case_id: r for r in run.records}
    ids = read_split(tmp_path / "bench" / "gate.txt")
    m = compute_metrics((records[i].decision, records[i].label or Label.FAIL, None) for i in ids)
    assert m.accuracy == pytest.approx(fit.gate_accuracy)
    assert fit.full_accuracy == pytest.approx(run.metrics.accuracy if run.metrics else -1)
    build_gate(dev, tmp_path / "plain", seed=0)
    plain_ids = read_split(tmp_path / "plain" / "gate.txt")
    pm = compute_metrics((records[i].decision, records[i].label or Label.FAIL, None)
                         for i in plain_ids)
    fit_distance = abs(fit.accuracy_diff) + abs(fit.balanced_accuracy_diff)
    plain_distance = (abs(pm.accuracy - fit.full_accuracy)
                      + abs(pm.balanced_accuracy - fit.full_balanced_accuracy))
    assert fit_distance <= plain_distance
    assert fit_distance < 0.05
    assert gate.counts.by_label == {"fail": 27, "pass": 9}
