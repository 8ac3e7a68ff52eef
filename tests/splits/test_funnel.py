"""The construction funnel: every trial that entered is counted once, where it left."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cases import Dataset, ValidationLimits
from judge_runner.cli.root import app
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.splits.build import build_splits
from tests.ingest.helpers import good_run, make_task, make_trial, writing_run


def pool(tmp_path: Path) -> Dataset:
    trials = tmp_path / "trials"
    for task in ("t1", "t2", "t3", "t4"):
        make_task(tmp_path / "tasks", task)
    for task, name, reward in (("t1", "a", 1.0), ("t1", "b", 0.0), ("t2", "c", 1.0),
                               ("t2", "d", 0.0), ("t3", "e", 1.0), ("t4", "f", 1.0)):
        make_trial(trials, name, good_run(), task=task, reward=reward)
    # t4's fail case is long: over --max-steps, so t4 is left with passes only
    make_trial(trials, "h", writing_run({f"/root/f{i}.txt": "x" for i in range(30)}), task="t4",
               reward=0.0)
    make_trial(trials, "broken", "not a transcript\n", task="t1")  # refused by the import
    make_trial(trials, "nores", good_run(), with_result=False)  # refused: no result.json
    out = tmp_path / "ds"
    import_trials([trials], out, ImportOptions(task_dirs=[tmp_path / "tasks"]))
    return Dataset(out)


def test_every_trial_is_counted_once_where_it_left(tmp_path: Path) -> None:
    data = pool(tmp_path)
    built = build_splits(data, tmp_path / "bench", eval_size=2,
                         limits=ValidationLimits(max_steps=20))
    funnel = built.manifest.funnel
    assert funnel is not None
    total = funnel.total
    assert (total.entered, total.refused, total.overlong, total.single_outcome,
            total.remained) == (9, 2, 1, 2, 4)
    assert total.entered == sum(getattr(total, s) for s in
                                ("refused", "overlong", "invalid", "unlabeled",
                                 "single_outcome", "remained"))
    assert sum(funnel.refused_by_reason.values()) == 2
    assert "missing result.json" in funnel.refused_by_reason
    harness = {r.group: r.entered for r in funnel.by_harness}
    assert harness == {"(unknown)": 1, "claude-code": 8}
    assert (funnel.tasks_entered, funnel.tasks_remained) == (4, 2)


def test_bench_build_prints_the_funnel_and_writes_it(tmp_path: Path) -> None:
    data = pool(tmp_path)
    result = CliRunner().invoke(app, ["bench", "build", str(data.root), "--eval-size", "2",
                                      "--max-steps", "20"])
    assert result.exit_code == 0, result.output
    assert "single_outcome" in result.output and "harness: claude-code" in result.output
    manifest = json.loads((data.root / "bench" / "manifest.json").read_text())
    assert manifest["funnel"]["total"]["entered"] == 9
