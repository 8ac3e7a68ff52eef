"""`eval_rules.py --loto`: strict leave-one-task-out of a log-odds rule set."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from judge_runner.core import Decision, Label, Metrics, Outcome, compute_metrics
from judge_runner.judges.rules.calibrate import (
    PRIOR,
    SCALE_AND_OFFSET,
    Fit,
    HeldOut,
    fit,
    leave_one_task_out,
)
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.optimizer import DevResult
from judge_runner.judges.rules.spec import CheckSpec, RuleSet, load_rules

# The trivial baseline: the final message has none of these words → pass. Fixed, not fitted.
FAILURE_WORDS = re.compile(
    r"\b(fail(ed|s|ure)?|error(s)?|unable|could not|couldn.t|cannot|can.t|not able|issue(s)?"
    r"|problem(s)?|missing|incomplete|partial(ly)?|unfortunately|however)\b", re.IGNORECASE)
COVERAGE_TARGET = 0.5


def accuracy_at_coverage(held: list[HeldOut], coverage: float) -> tuple[float, float]:
    """(coverage, accuracy) of the most confident ceil(coverage·n) held-out cases, decided by
    their forced decisions (ties in confidence broken by case id)."""
    order = sorted(held, key=lambda h: (-h.confidence, h.case_id))
    k = max(1, -(-int(coverage * 1000) * len(order) // 1000))
    top = order[:k]
    right = sum(1 for h in top if h.forced.value == h.label.value)
    return k / len(order), right / k


def run_loto(args: argparse.Namespace, root: Path, results: dict[str, DevResult],
             task_of: dict[str, str], domain_of: dict[str, str | None],
             finals: dict[str, str], labels: dict[str, Label], errors: list[str]) -> int:
    rules = load_rules(args.skill, known_checks())
    ordered = [results[c] for c in sorted(results)]
    folds = {name: leave_one_task_out(rules, ordered, task_of, prior)
             for name, prior in (("scale, offset", SCALE_AND_OFFSET),
                                 ("weights, scale, offset", PRIOR))}
    rows: list[tuple[str, Metrics]] = []
    figures: dict[str, object] = {}
    for name, (held, fits) in folds.items():
        forced = compute_metrics([(h.forced, h.label, domain_of[h.case_id]) for h in held],
                                 seed=args.seed)
        abstaining = compute_metrics([(h.decision, h.label, domain_of[h.case_id])
                                      for h in held], seed=args.seed)
        cov, acc = accuracy_at_coverage(held, COVERAGE_TARGET)
        rows += [(f"rules ({name} fitted), forced", forced),
                 (f"rules ({name} fitted), abstain margin {rules.verdict.abstain_margin:g}",
                  abstaining)]
        figures[name] = {"forced": forced.model_dump(mode="json"),
                         "abstaining": abstaining.model_dump(mode="json"),
                         "accuracy_at_coverage": {"coverage": cov, "accuracy": acc},
                         "fits": {t: _fit_json(f) for t, f in fits.items()}}
    ids = sorted(labels)
    always = compute_metrics([(Decision.PASS, labels[c], None) for c in ids], resamples=0)
    words = compute_metrics([(Decision.FAIL if FAILURE_WORDS.search(finals.get(c, ""))
                              else Decision.PASS, labels[c], None) for c in ids], resamples=0)
    rows += [("always pass", always), ("no failure words in the final message", words)]
    n_tasks = len(set(task_of.values()))
    print(f"dataset: {root} — {len(labels)} labelled cases, {n_tasks} tasks, "
          f"{sum(1 for v in labels.values() if v is Label.PASS)} pass; judge errors: "
          f"{len(errors)}; skill {args.skill}")
    print("protocol: strict leave-one-task-out; the checks' findings frozen, the combination "
          "(scale and offset, or the weights too) fitted on the other tasks\n")
    print("| judge (LOTO) | n | decided | BalAcc | Acc | P | R | Recall_fail |")
    print("|---|---|---|---|---|---|---|---|")
    for name, m in rows:
        ci = m.ci.get("balanced_accuracy")
        bal = f"{m.balanced_accuracy:.3f}" + (f" [{ci.low:.2f}, {ci.high:.2f}]" if ci else "")
        print(f"| {name} | {m.n} | {m.n_decided} | {bal} | {m.accuracy:.3f} | "
              f"{m.precision:.3f} | {m.recall:.3f} | {m.recall_fail:.3f} |")
    for name, (held, fits) in folds.items():
        cov, acc = accuracy_at_coverage(held, COVERAGE_TARGET)
        print(f"\n{name} fitted: risk-coverage (pooled held-out confidences): accuracy "
              f"{acc:.3f} at coverage {cov:.3f} (target coverage >= {COVERAGE_TARGET})")
        _print_ranges(rules, list(fits.values()))
    if args.fit:
        for name, prior in (("scale, offset", SCALE_AND_OFFSET),
                            ("weights, scale, offset", PRIOR)):
            full = fit(rules, ordered, prior)
            print(f"{name} fitted on all cases: {json.dumps(_fit_json(full))}")
    if args.per_check:
        _per_check(rules.enabled(), ordered, task_of)
    if args.json:
        args.json.write_text(json.dumps({
            "dataset": str(root), "protocol": "leave-one-task-out", "skill": str(args.skill),
            **figures,
            "baselines": {"always_pass": always.model_dump(mode="json"),
                          "no_failure_words": words.model_dump(mode="json")},
        }, indent=2) + "\n")
    return 0


def _fit_json(fitted: Fit) -> dict[str, object]:
    return {"scale": fitted.rules.score.scale, "offset": fitted.rules.score.offset,
            "weights": fitted.weights, "support_weights": fitted.support_weights}


def _print_ranges(rules: RuleSet, fits: list[Fit]) -> None:
    """The range of each fitted number over the folds, next to the skill's value."""
    scales = [f.rules.score.scale for f in fits]
    offsets = [f.rules.score.offset for f in fits]
    print(f"fold fits: scale {min(scales):.3f}..{max(scales):.3f}, offset "
          f"{min(offsets):.3f}..{max(offsets):.3f} over {len(fits)} folds")
    for check in rules.enabled():
        for kind, field in (("weight", "weights"), ("support_weight", "support_weights")):
            values = [getattr(f, field)[check.id] for f in fits if check.id in getattr(f, field)]
            if values:
                print(f"  {check.id}.{kind}: {getattr(check, kind):g} -> "
                      f"{min(values):.3f}..{max(values):.3f}")


def _per_check(specs: list[CheckSpec], results: list[DevResult], task_of: dict[str, str]) -> None:
    """Each check's verdicts per task: S supports, R refutes, I inconclusive, - not applicable."""
    tasks = sorted(set(task_of.values()))
    print("\nper check and task: S/R/I/- (supports, refutes, inconclusive, not applicable); "
          "'refute rate' = refutes over all cases, by label")
    print("| check | refute rate pass | refute rate fail | " + " | ".join(tasks) + " |")
    print("|---|---|---|" + "---|" * len(tasks))
    for spec in specs:
        cells = []
        for task in tasks:
            counts = Counter(r.findings.get(spec.id) for r in results
                             if task_of[r.case_id] == task)
            cells.append("/".join(str(counts[o]) for o in
                                  (Outcome.SUPPORTS, Outcome.REFUTES, Outcome.INCONCLUSIVE, None)))
        rates = []
        for label in (Label.PASS, Label.FAIL):
            group = [r for r in results if r.label is label]
            refuted = sum(1 for r in group if r.findings.get(spec.id) is Outcome.REFUTES)
            rates.append(f"{refuted}/{len(group)}")
        print(f"| {spec.id} | {rates[0]} | {rates[1]} | " + " | ".join(cells) + " |")
