"""Reflection bundles: misjudged dev cases grouped by the rewrite goal they inform.

A bundle case carries what the judge produced (plan, inspection log, verdict) and a digest of
the dev-only verifier evidence that explains the true label. Bundles feed the offline briefs
only; nothing here is ever shown to a judge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from judge_runner.cases import Dataset
from judge_runner.core import Decision, Inspection, Label, Verdict, is_correct
from judge_runner.evolve.state import Strategy
from judge_runner.judges import PLAN_FILE, read_log

EVIDENCE_DIGEST_CHARS = 2000


@dataclass(frozen=True)
class JudgedCase:
    """One dev case after judging: the verdict, the true label and where the products are."""

    case_id: str
    verdict: Verdict
    label: Label
    products_dir: Path

    @property
    def misjudged(self) -> bool:
        """Decided, and wrong (errors and abstentions are not reflected on)."""
        return is_correct(self.verdict.decision, self.label) is False


class BundleCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    task: str
    domain: str | None
    judged: Decision
    truth: Label
    rationale: str
    plan_md: str
    inspections: list[Inspection]
    evidence_digest: str  # dev-only


class Bundle(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: Strategy
    cases: list[BundleCase]


def partition(judged: list[JudgedCase], dataset: Dataset) -> dict[Strategy, Bundle]:
    """Group misjudged cases: false passes harden, false fails relax, both calibrate.

    Strategies without any misjudged case get no bundle. Order is by case id (deterministic).
    """
    wrong = sorted((j for j in judged if j.misjudged), key=lambda j: j.case_id)
    false_pass = [j for j in wrong if j.label is Label.FAIL]
    false_fail = [j for j in wrong if j.label is Label.PASS]
    groups = {
        Strategy.HARDEN: false_pass,
        Strategy.RELAX: false_fail,
        Strategy.CALIBRATE: wrong if false_pass and false_fail else [],
    }
    return {
        strategy: Bundle(strategy=strategy, cases=[_bundle_case(j, dataset) for j in members])
        for strategy, members in groups.items()
        if members
    }


def _bundle_case(j: JudgedCase, dataset: Dataset) -> BundleCase:
    meta = dataset.case(j.case_id).meta
    plan_path = j.products_dir / PLAN_FILE
    return BundleCase(
        case_id=j.case_id,
        task=meta.task,
        domain=meta.domain.value if meta.domain else None,
        judged=j.verdict.decision,
        truth=j.label,
        rationale=j.verdict.rationale,
        plan_md=plan_path.read_text(encoding="utf-8") if plan_path.is_file() else "",
        inspections=read_log(j.products_dir),
        evidence_digest=evidence_digest(dataset.evidence_dir(j.case_id)),
    )


def evidence_digest(evidence_dir: Path, max_chars: int = EVIDENCE_DIGEST_CHARS) -> str:
    """A short account of what the verifier saw: failed tests and their messages from the CTRF
    reports under `evidence_dir` (at any depth, e.g. `verifier/ctrf.json`), else the tail of its
    text output. Empty when there is no evidence."""
    if not evidence_dir.is_dir():
        return ""
    reports = [d for d in map(_ctrf_digest, sorted(evidence_dir.rglob("ctrf.json"))) if d]
    if reports:
        return "\n".join(reports)[:max_chars]
    texts = sorted(evidence_dir.rglob("*.txt"))
    if not texts:
        return ""
    tail = texts[0].read_text(encoding="utf-8", errors="replace")[-max_chars:]
    return f"verifier output (tail):\n{tail}"


def _ctrf_digest(path: Path) -> str:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))["results"]
    except (ValueError, KeyError, TypeError):
        return ""
    summary = results.get("summary", {})
    lines = [f"verifier: {summary.get('passed', '?')}/{summary.get('tests', '?')} tests passed"]
    for test in results.get("tests", []):
        if test.get("status") == "passed":
            continue
        message = (test.get("message") or test.get("trace") or "").strip().splitlines()
        first = message[0][:200] if message else ""
        lines.append(f"- {test.get('status')}: {test.get('name')}: {first}")
    return "\n".join(lines)
