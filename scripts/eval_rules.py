"""Evaluate the rules judge task-disjointly: k-fold by task, tuned on some tasks, scored on others.

    .venv/bin/python scripts/eval_rules.py [--trials DIR --tasks DIR | --dataset DIR]
                                           [--folds 5] [--seed 0] [--skill judgeskills/v1]
                                           [--work DIR] [--json FILE]
    .venv/bin/python scripts/eval_rules.py --loto --skill judgeskills/v2 [--per-check] [--fit]

`--loto` (for log-odds rule sets): strict leave-one-task-out. The checks' findings are frozen;
for each task, the combination (see judge_runner/judges/rules/calibrate.py) is fitted on the
cases of the other tasks twice — scale and offset only, and the weights with them, as
`judge-runner calibrate` does — and the held-out task's cases are decided with each, forced and
with abstention. Prints pooled figures, accuracy at coverage >= 0.5 of the pooled risk-coverage
curve, the range of each fitted number over the folds, and two baselines under the same
protocol (always pass; "the final message has no failure words"). `--per-check` adds each
check's verdict distribution per task; `--fit` prints the numbers fitted on all cases (the
scale/offset ones are what checks.toml ships).

Steps: import the Harbor trials (default: ../shared/data/skillsbench-real) into a dataset with
the project importer; judge every case once with the given skill (its findings do not depend on
weights or thresholds); then for each fold, let the rules optimizer propose a candidate from the
training tasks' cases only and score the held-out tasks with it. Prints the pooled held-out
metrics (pass is the positive class) with 95 % intervals and n, next to the untuned skill on all
cases. Labels are read only to score and, inside a fold, to tune on the training tasks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge_runner.cases import Dataset
from judge_runner.core import Decision, Label, Metrics, compute_metrics
from judge_runner.ingest import ImportOptions, import_trials
from judge_runner.judges.rules import RulesJudge
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.judge import default_skill_dir
from judge_runner.judges.rules.optimizer import (
    DevResult,
    Edit,
    decide,
    dev_results_from_run,
    propose,
)
from judge_runner.judges.rules.spec import load_rules
from judge_runner.log import configure

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "skillsbench-real"
FIGURES = ("precision", "recall", "f1", "accuracy", "balanced_accuracy")


def task_folds(tasks: list[str], k: int, seed: int) -> list[list[str]]:
    """Tasks shuffled by `seed` and dealt round-robin into `k` folds (fewer if fewer tasks)."""
    order = sorted(set(tasks))
    random.Random(seed).shuffle(order)
    k = min(k, len(order))
    return [sorted(order[i::k]) for i in range(k)]


def table(name: str, metrics: Metrics) -> str:
    cells = []
    for figure in FIGURES:
        value = getattr(metrics, figure)
        ci = metrics.ci.get(figure)
        cells.append(f"{value:.3f} [{ci.low:.2f}, {ci.high:.2f}]" if ci else f"{value:.3f}")
    return f"| {name} | {metrics.n} | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=Path, default=REAL / "trials")
    parser.add_argument("--tasks", type=Path, default=REAL / "tasks")
    parser.add_argument("--dataset", type=Path, help="an imported dataset (skips the import)")
    parser.add_argument("--skill", type=Path, default=default_skill_dir())
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, help="keep intermediate files here")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--loto", action="store_true",
                        help="strict leave-one-task-out of a log-odds rule set (see above)")
    parser.add_argument("--per-check", action="store_true",
                        help="with --loto: each check's verdict distribution per task")
    parser.add_argument("--fit", action="store_true",
                        help="with --loto: print the combinations fitted on all cases")
    parser.add_argument("--ablation", action="store_true",
                        help="also print BalAcc of the untuned skill with each check switched off")
    args = parser.parse_args()
    configure(level="warning")

    work = args.work or Path(tempfile.mkdtemp(prefix="eval_rules_"))
    if args.dataset is None:
        import_trials([args.trials], work / "dataset", ImportOptions(task_dirs=[args.tasks]))
        dataset = Dataset(work / "dataset")
    else:
        dataset = Dataset(args.dataset)
    labels = {k: r.label for k, r in dataset.labels().items()}
    cases = [c for c in dataset.cases() if c.id in labels]
    if not cases:
        print(f"no labelled cases in {dataset.root}", file=sys.stderr)
        return 2
    judge = RulesJudge(args.skill)
    run_dir = work / "base"
    errors = [c.id for c in cases if judge.judge(c, run_dir / c.id).decision is Decision.ERROR]
    results = {r.case_id: r for r in dev_results_from_run(run_dir, labels)}
    task_of = {c.id: c.meta.task for c in cases}
    domain_of = {c.id: c.meta.domain.value if c.meta.domain else None for c in cases}
    if args.loto:
        from _loto import run_loto

        finals = {c.id: c.trajectory.final_message or "" for c in cases}
        return run_loto(args, dataset.root, results, task_of, domain_of, finals, labels,
                        errors)

    base_rules = load_rules(args.skill, known_checks())
    untuned = [(decide(base_rules, results[c])[0] if c in results else Decision.ERROR,
                labels[c], domain_of[c]) for c in sorted(labels)]
    folds = task_folds(list(task_of.values()), args.folds, args.seed)
    held_out: list[tuple[Decision, Label, str | None]] = []
    edits: list[str] = []
    for n, fold in enumerate(folds):
        train = [r for r in results.values() if task_of[r.case_id] not in fold]
        test = sorted(c for c in task_of if task_of[c] in fold)
        candidate_dir = propose(args.skill, train, work / f"fold{n}", seed=args.seed + n)
        candidate = load_rules(candidate_dir, known_checks())
        edits.append(_edits_line(candidate_dir))
        for case_id in test:
            result: DevResult | None = results.get(case_id)
            decision = decide(candidate, result)[0] if result else Decision.ERROR
            held_out.append((decision, labels[case_id], domain_of[case_id]))

    pooled = compute_metrics(held_out, seed=args.seed)
    base = compute_metrics(untuned, seed=args.seed)
    n_tasks = len(set(task_of.values()))
    print(f"dataset: {dataset.root} — {len(cases)} labelled cases, {n_tasks} tasks, "
          f"{sum(1 for v in labels.values() if v is Label.PASS)} pass; judge errors: {len(errors)}")
    print(f"task-disjoint: {len(folds)} folds by task, seed {args.seed}")
    print("\n| rules | n | P | R | F1 | Acc | BalAcc |\n|---|---|---|---|---|---|---|")
    print(table("task-disjoint k-fold (tuned on other tasks)", pooled))
    print(table("bundled skill, untuned, all cases", base))
    print("\n95 % intervals: Wilson for P, R, Acc; percentile bootstrap for BalAcc; F1 none.")
    for n, line in enumerate(edits):
        print(f"fold {n} ({', '.join(folds[n])}): {line}")
    if args.ablation:
        print("\n| switched off | BalAcc (all cases, untuned) |\n|---|---|")
        for spec in base_rules.enabled():
            off = Edit(spec.id, "enabled", False).apply(base_rules)
            rows = [(decide(off, results[c])[0] if c in results else Decision.ERROR, labels[c],
                     domain_of[c]) for c in sorted(labels)]
            print(f"| {spec.id} | {compute_metrics(rows, resamples=1).balanced_accuracy:.3f} |")
    if args.json:
        args.json.write_text(json.dumps({
            "dataset": str(dataset.root), "folds": folds, "seed": args.seed,
            "task_disjoint": pooled.model_dump(mode="json"),
            "untuned": base.model_dump(mode="json"), "fold_edits": edits,
        }, indent=2) + "\n")
    return 0


def _edits_line(skill_dir: Path) -> str:
    for line in (skill_dir / "checks.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("# Edits: "):
            return line.removeprefix("# Edits: ")
    return "none"


if __name__ == "__main__":
    raise SystemExit(main())
