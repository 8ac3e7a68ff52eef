"""The rules optimizer: proposes a new JudgeSkill by reweighing checks from misjudged dev cases.

Check findings do not depend on weights, criticality, the pass threshold or which checks are on,
so a dev run's inspection logs can be re-scored exactly under any such change without judging
again. The optimizer searches that space:

1. Start from the parent's rules; score every dev case with `combine`.
2. Candidate edits come from the misjudged cases: for each check that fired (supported or
   refuted) on a misjudged case — scale its weight (×0.5, ×1.5, ×2), flip ``task_critical``,
   switch it off — plus pass-threshold moves to every midpoint between dev scores.
3. Greedy ascent: apply the edit that most improves the objective
   ``G = 0.5·BalAcc + 0.3·Recall_fail + 0.2·Precision_pass`` minus ``change_cost`` per edit,
   until no edit improves it or ``max_edits`` is reached. Ties go to the edit ranked first by a
   seeded shuffle, so a seed fully determines the result.
4. Write the candidate: a copy of the parent directory whose checks.toml holds the new rules and
   a header listing the parent's rules hash, the seed and the edits.

Check-internal thresholds (regexes, ratios) change findings, so they are not searched here.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Decision, Inspection, Label, Outcome, compute_metrics
from judge_runner.judges.products import read_log, read_verdict
from judge_runner.judges.rules.address_checks import judged_specs
from judge_runner.judges.rules.checks import known_checks
from judge_runner.judges.rules.combine import Combined, combine
from judge_runner.judges.rules.spec import CHECKS_FILE, RuleSet, dump_rules, load_rules

WEIGHT_FACTORS = (0.5, 1.5, 2.0)


class DevResult(BaseModel):
    """One judged dev case: its label and each applicable check's outcome (check id → outcome)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    label: Label
    findings: dict[str, Outcome]


def dev_results_from_run(run_dir: Path, labels: dict[str, Label]) -> list[DevResult]:
    """Read `<run_dir>/<case_id>/inspection_log.jsonl` for every labelled case judged there.

    Cases whose verdict is an error (or that have no products) are skipped: they carry no
    findings to learn from.
    """
    results = []
    for case_id in sorted(labels):
        out = run_dir / case_id
        if not (out / "verdict.json").is_file() or read_verdict(out).decision is Decision.ERROR:
            continue
        findings = {i.check: i.outcome for i in read_log(out)}
        results.append(DevResult(case_id=case_id, label=labels[case_id], findings=findings))
    return results


def decide(rules: RuleSet, result: DevResult) -> tuple[Decision, float]:
    """The decision and score `rules` give a dev case, from its recorded findings."""
    combined = recombine(rules, result.findings, allow_abstain=False)
    return combined.decision, combined.score


def recombine(rules: RuleSet, findings: dict[str, Outcome], *, allow_abstain: bool) -> Combined:
    """What `combine` gives recorded findings (check id → outcome) under `rules`, with the
    checks the judge runs (`judged_specs`: the judge-address guard's refutation is critical)."""
    log: list[Inspection] = []
    weights: dict[str, float] = {}
    for spec in judged_specs(rules):
        outcome = findings.get(spec.id)
        if outcome is None:
            continue
        inspection_id = f"I{len(log) + 1}"
        log.append(Inspection(id=inspection_id, plan_item="P", check=spec.id, finding="",
                              outcome=outcome, critical=spec.task_critical))
        weights[inspection_id] = spec.weight_for(outcome.value)
    return combine(rules, log, weights, allow_abstain=allow_abstain)


def objective(rules: RuleSet, results: Sequence[DevResult]) -> float:
    """The gate score G of `runs.metrics` on the dev results (0 if empty), without intervals."""
    rows = [(decide(rules, result)[0], result.label, None) for result in results]
    return compute_metrics(rows, resamples=0).gate_score


@dataclass(frozen=True)
class Edit:
    """One change to a rule set; `describe` goes into the candidate's header."""

    check_id: str | None  # None: the verdict's pass threshold
    field: str
    value: float | bool

    def apply(self, rules: RuleSet) -> RuleSet:
        if self.check_id is None:
            verdict = rules.verdict.model_copy(update={self.field: self.value})
            return rules.model_copy(update={"verdict": verdict})
        checks = [c.model_copy(update={self.field: self.value}) if c.id == self.check_id else c
                  for c in rules.check]
        return rules.model_copy(update={"check": checks})

    def describe(self) -> str:
        target = self.check_id or "verdict"
        value = f"{self.value:g}" if isinstance(self.value, float) else str(self.value).lower()
        return f"{target}.{self.field} = {value}"


def candidate_edits(rules: RuleSet, results: Sequence[DevResult]) -> list[Edit]:
    """Edits suggested by the misjudged cases, plus threshold moves between observed scores."""
    misjudged = [r for r in results
                 if (decide(rules, r)[0] is Decision.PASS) != (r.label is Label.PASS)]
    fired = sorted({check for r in misjudged for check, outcome in r.findings.items()
                    if outcome is not Outcome.INCONCLUSIVE})
    edits: list[Edit] = []
    for check_id in fired:
        spec = rules.by_id(check_id) if check_id in {c.id for c in rules.check} else None
        if spec is None:
            continue
        edits += [Edit(check_id, "weight", round(spec.weight * f, 4)) for f in WEIGHT_FACTORS]
        edits.append(Edit(check_id, "task_critical", not spec.task_critical))
        edits.append(Edit(check_id, "enabled", not spec.enabled))
    scores = sorted({round(decide(rules, r)[1], 6) for r in results})
    for low, high in itertools.pairwise(scores):
        edits.append(Edit(None, "pass_threshold", round((low + high) / 2, 4)))
    return [e for e in edits if e.apply(rules) != rules]


def optimize(rules: RuleSet, results: Sequence[DevResult], *, seed: int,
             max_edits: int = 4, change_cost: float = 0.005) -> tuple[RuleSet, list[Edit]]:
    """Greedy ascent over `candidate_edits` (see the module docstring); deterministic per seed."""
    rng = random.Random(seed)
    applied: list[Edit] = []
    current = rules
    best = objective(current, results)
    for _ in range(max_edits):
        edits = candidate_edits(current, results)
        rng.shuffle(edits)
        scored = [(objective(e.apply(current), results) - change_cost, n, e)
                  for n, e in enumerate(edits)]
        improving = [s for s in scored if s[0] > best + 1e-12]
        if not improving:
            break
        gain, _, edit = max(improving, key=lambda s: (s[0], -s[1]))
        current, best = edit.apply(current), gain + change_cost
        applied.append(edit)
    return current, applied


def propose(parent_skill_dir: Path, dev_results: Iterable[DevResult], out_dir: Path,
            seed: int, *, max_edits: int = 4) -> Path:
    """Write a candidate JudgeSkill to `out_dir` and return it.

    The candidate is a copy of `parent_skill_dir` with a rewritten checks.toml (identical rules
    when no edit improves the dev objective). Raises `RulesError` for an invalid parent and
    `FileExistsError` when `out_dir` already exists, so a proposal never overwrites another.
    """
    parent = load_rules(parent_skill_dir, known_checks())
    results = sorted(dev_results, key=lambda r: r.case_id)
    rules, edits = optimize(parent, results, seed=seed, max_edits=max_edits)
    parent_hash = hashlib.sha256((parent_skill_dir / CHECKS_FILE).read_bytes()).hexdigest()
    header = "\n".join([
        "Machine-readable rules of this JudgeSkill, read by the rules judge (--judge rules).",
        f"Proposed by the rules optimizer from parent rules sha256 {parent_hash[:16]},",
        f"seed {seed}, {len(results)} dev cases; dev objective G "
        f"{objective(parent, results):.4f} -> {objective(rules, results):.4f}.",
        "Edits: " + ("; ".join(e.describe() for e in edits) if edits else "none"),
    ])
    shutil.copytree(parent_skill_dir, out_dir)
    (out_dir / CHECKS_FILE).write_text(dump_rules(rules, header=header), encoding="utf-8")
    return out_dir
