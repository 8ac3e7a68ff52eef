"""The evolution loop: judge dev cases, reflect on the misjudged ones, rewrite, gate, promote.

Each round (all state in `EvolveState`, saved after every step):

1. STARTED   draw a seeded sample of dev cases (gate cases excluded)
2. BRIEFED   judge it with the incumbent; bundle the misjudged cases per strategy and compress
             the bundles into strategy briefs and one shared brief
3. PROPOSED  one candidate per strategy from the optimizer; invalid ones are recorded, not gated
4. DONE      gate every valid candidate; promote the best one only if it strictly improves G
             (and, when required, a paired McNemar test on the gate agrees)

A promotion is written in two steps — target version recorded in the state, then the directory
and lineage written — so a kill between them repeats the write, never a second promotion.
Stopping: rounds done, dollar or call budget reached, candidate cap reached, or a STOP file in
the run directory. The final state says why it stopped.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import structlog

from judge_runner.cases import Dataset
from judge_runner.core import Decision, Figures, Label, compute_metrics, is_correct
from judge_runner.evolve.briefs import make_briefs
from judge_runner.evolve.bundles import Bundle, JudgedCase, partition
from judge_runner.evolve.candidates import LeakageGuard, validate_candidate
from judge_runner.evolve.evaluate import SkillEvaluator
from judge_runner.evolve.optimizer import (
    Optimizer,
    ProposalError,
    ProposalRequest,
    UnusableAnswer,
    skill_files,
)
from judge_runner.evolve.policies import (
    BEFORE_A_ROUND,
    HARD_STOPS,
    NO_NEW_CANDIDATES,
    Acceptance,
    BeatsIncumbent,
    first_stop,
    gate_comparison,
)
from judge_runner.evolve.state import (
    CandidateRecord,
    CandidateStatus,
    EvolveConfig,
    EvolveState,
    Phase,
    RoundRecord,
    Spend,
    Strategy,
)
from judge_runner.runs import mcnemar
from judge_runner.skills import (
    LINEAGE_FILE,
    LineageEntry,
    Origin,
    VersionFigures,
    hash_directory,
    load_lineage,
    version_dirs,
)

ROUNDS_DIR = "rounds"
CANDIDATES_DIR = "candidates"
GATE = "gate"

log = structlog.get_logger("judge_runner.evolve")


class EvolveError(RuntimeError):
    pass


def gate_figures(judged: list[JudgedCase], domains: dict[str, str | None]) -> Figures:
    """Gate metrics where a verdict that is not pass or fail counts as the wrong decision.

    Leaving errors out (as evaluation reports do, beside coverage) would let a candidate raise G
    by failing to judge the hard gate cases; on the gate, not deciding is judging wrongly.
    """
    m = compute_metrics(
        (_decided_or_wrong(j.verdict.decision, j.label), j.label, domains.get(j.case_id))
        for j in judged
    )
    undecided = sum(1 for j in judged if not j.verdict.decision.is_decided)
    return m.figures(n_error=undecided)


def _decided_or_wrong(decision: Decision, label: Label) -> Decision:
    if decision.is_decided:
        return decision
    return Decision.FAIL if label is Label.PASS else Decision.PASS


@dataclass
class Evolution:
    """One evolution run in `run_dir`; `run()` starts it or resumes it."""

    config: EvolveConfig
    run_dir: Path
    dataset: Dataset
    evaluator: SkillEvaluator
    optimizer: Optimizer
    skills_root: Path  # where promoted versions (vK/) and lineage.json are written
    on_step: Callable[[EvolveState], None] | None = None  # called after every saved step
    acceptance: Acceptance = field(default_factory=BeatsIncumbent)

    def __post_init__(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        metas = {c.id: c.meta for c in self.dataset.cases()}
        self._domains = {i: (m.domain.value if m.domain else None) for i, m in metas.items()}
        pool = set(self.config.dev_ids) | set(self.config.gate_ids)
        self._guard = LeakageGuard.build(
            case_ids=pool,
            task_names={metas[i].task for i in pool if i in metas},
            evidence_texts=_evidence_texts(self.dataset, sorted(pool)),
        )

    # -- state ---------------------------------------------------------------------------
    def _load_or_start(self) -> EvolveState:
        state = EvolveState.load(self.run_dir)
        if state is not None:
            if state.config != self.config:
                raise EvolveError(
                    f"{self.run_dir} holds an evolution with a different configuration; "
                    "use a new --run-dir or the original options"
                )
            return state
        skill = Path(self.config.skill)
        return EvolveState(
            config=self.config, incumbent_dir=str(skill), incumbent_hash=hash_directory(skill)
        )

    def _save(self, state: EvolveState) -> None:
        state.spend = self._spend()
        state.save(self.run_dir)
        if self.on_step is not None:
            self.on_step(state)

    def _spend(self) -> Spend:
        """Spend from durable records, so a kill never loses or double-counts it: every stored
        verdict's usage (each judged once) and the optimizer's own account of its calls."""
        judge = self.evaluator.stored_usage()
        optimizer = self.optimizer.spent()
        return Spend(
            judge_usd=judge.cost_usd,
            judge_calls=judge.calls,
            optimizer_usd=optimizer.cost_usd,
            optimizer_calls=optimizer.calls,
        )

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> EvolveState:
        state = self._load_or_start()
        if state.incumbent_gate is None:
            state.incumbent_gate = self._score_gate(
                state, Path(state.incumbent_dir), state.incumbent_hash
            )
            state.initial_gate = state.incumbent_gate
            self._save(state)
        while True:
            current = state.rounds[-1] if state.rounds else None
            state.spend = self._spend()
            between_rounds = current is None or current.phase is Phase.DONE
            stop = first_stop(BEFORE_A_ROUND if between_rounds else HARD_STOPS, state,
                              self.run_dir)
            if stop is not None:
                state.stop_reason = str(stop)
                break
            if current is None or current.phase is Phase.DONE:
                current = self._start_round(state)
            self._advance(state, current)
        self._save(state)
        log.info("evolve_stopped", reason=state.stop_reason, spend_usd=state.spend.total_usd)
        return state

    def _start_round(self, state: EvolveState) -> RoundRecord:
        index = len(state.rounds)
        gate = set(state.config.gate_ids)
        pool = sorted(c for c in state.config.dev_ids if c not in gate)
        rng = random.Random(f"{state.config.seed}:{index}")
        sample = sorted(rng.sample(pool, min(state.config.sample_size, len(pool))))
        record = RoundRecord(
            index=index, phase=Phase.STARTED, incumbent_hash=state.incumbent_hash, sample=sample
        )
        state.rounds.append(record)
        self._save(state)
        log.info("round_start", round=index, sample=len(sample))
        return record

    def _advance(self, state: EvolveState, rnd: RoundRecord) -> None:
        if rnd.phase is Phase.STARTED:
            # Judging is the paid part and its verdicts are stored as they come, so repeating
            # this step after a kill costs only the cases that were in flight.
            judged = self._judge_sample(state, rnd)
            bundles = partition(judged, self.dataset)
            self._write_round_file(rnd, "bundles.json", _bundles_json(bundles))
            rnd.misjudged = {s: [c.case_id for c in b.cases] for s, b in bundles.items()}
            briefs = make_briefs(judged, bundles, state.config.brief_token_bound)
            for strategy, text in briefs.strategy.items():
                self._write_round_file(rnd, f"brief-{strategy.value}.md", text)
            self._write_round_file(rnd, "brief-shared.md", briefs.shared)
            rnd.brief_hashes = briefs.hashes()
            rnd.phase = Phase.BRIEFED
        elif rnd.phase is Phase.BRIEFED:
            self._propose_all(state, rnd)
            rnd.phase = Phase.PROPOSED
        elif rnd.phase is Phase.PROPOSED:
            self._gate_and_decide(state, rnd)
            rnd.phase = Phase.DONE
        self._save(state)

    def _round_dir(self, rnd: RoundRecord) -> Path:
        path = self.run_dir / ROUNDS_DIR / f"r{rnd.index}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _write_round_file(self, rnd: RoundRecord, name: str, text: str) -> None:
        (self._round_dir(rnd) / name).write_text(text, encoding="utf-8")

    def _judge_sample(self, state: EvolveState, rnd: RoundRecord) -> list[JudgedCase]:
        return self.evaluator.evaluate(
            Path(state.incumbent_dir), state.incumbent_hash, "dev", rnd.sample
        ).judged

    def _propose_all(self, state: EvolveState, rnd: RoundRecord) -> None:
        shared = (self._round_dir(rnd) / "brief-shared.md").read_text(encoding="utf-8")
        judged = self._judge_sample(state, rnd)  # from the store: nothing is judged again
        for strategy in Strategy:
            brief_path = self._round_dir(rnd) / f"brief-{strategy.value}.md"
            cid = f"r{rnd.index}-{strategy.value}"
            if not brief_path.is_file() or cid in rnd.candidates:
                continue
            if (stop := first_stop(NO_NEW_CANDIDATES, state, self.run_dir)) is not None:
                log.info("proposal_skipped", candidate=cid, reason=str(stop))
                break
            record = self._propose(
                state, rnd, strategy, cid, brief_path.read_text(encoding="utf-8"), shared, judged
            )
            state.candidates.append(record)
            rnd.candidates.append(cid)
            self._save(state)

    def _propose(
        self,
        state: EvolveState,
        rnd: RoundRecord,
        strategy: Strategy,
        cid: str,
        brief: str,
        shared: str,
        judged: list[JudgedCase],
    ) -> CandidateRecord:
        out_dir = self.run_dir / CANDIDATES_DIR / cid
        record = CandidateRecord(
            id=cid,
            round=rnd.index,
            strategy=strategy,
            parent_hash=state.incumbent_hash,
            status=CandidateStatus.PROPOSED,
            brief_hashes={
                k: v for k, v in rnd.brief_hashes.items() if k in (strategy.value, "shared")
            },
        )
        request = ProposalRequest(
            parent_dir=Path(state.incumbent_dir),
            strategy=strategy,
            strategy_brief=brief,
            shared_brief=shared,
            out_dir=out_dir,
            seed=state.config.seed * 1000 + rnd.index,
            judged=judged,
        )
        try:
            proposal = self.optimizer.propose(request)
        except UnusableAnswer as exc:  # an answer arrived: invalid, like a failed validation
            log.warning("candidate_invalid", candidate=cid, problems=[str(exc)])
            return record.model_copy(update={"status": CandidateStatus.INVALID,
                                             "reason": str(exc)})
        except ProposalError as exc:
            log.warning("proposal_failed", candidate=cid, error=str(exc))
            return record.model_copy(update={"status": CandidateStatus.FAILED, "reason": str(exc)})
        problems = validate_candidate(proposal.skill_dir, self._guard)
        skill_hash = hash_directory(proposal.skill_dir)
        update: dict[str, object] = {
            "skill_dir": str(proposal.skill_dir),
            "skill_hash": skill_hash,
            "rationale": proposal.rationale,
        }
        if skill_hash == state.incumbent_hash:
            problems.append("candidate is identical to its parent")
        if problems:
            log.warning("candidate_invalid", candidate=cid, problems=problems)
            update |= {"status": CandidateStatus.INVALID, "reason": "; ".join(problems)}
        return record.model_copy(update=update)

    def _score_gate(self, state: EvolveState, skill_dir: Path, skill_hash: str) -> Figures:
        evaluation = self.evaluator.evaluate(skill_dir, skill_hash, GATE, state.config.gate_ids)
        return gate_figures(evaluation.judged, self._domains)

    def _gate_correct(self, skill_dir: Path, skill_hash: str) -> dict[str, bool]:
        """Per gate case, whether the skill's judge got it right (an error or abstention is a
        miss, as in the gate score)."""
        evaluation = self.evaluator.evaluate(skill_dir, skill_hash, GATE, self.config.gate_ids)
        return {
            j.case_id: is_correct(j.verdict.decision, j.label) is True for j in evaluation.judged
        }

    def _gate_and_decide(self, state: EvolveState, rnd: RoundRecord) -> None:
        scored: list[CandidateRecord] = []
        for cid in rnd.candidates:
            cand = state.candidate(cid)
            if cand.status is CandidateStatus.PROPOSED:
                cand.gate = self._score_gate(state, *cand.written())
                cand.status = CandidateStatus.SCORED
                self._save(state)
            if cand.status is CandidateStatus.SCORED:
                scored.append(cand)
        order = list(Strategy)
        ranked = sorted(scored, key=lambda c: (-c.figures().gate_score, order.index(c.strategy)))
        winner = None
        refusals: dict[str, str] = {}
        for cand in ranked:
            if cand.promoted_as is not None:  # a promotion interrupted after being decided
                winner = cand
                break
            if (refusal := self.acceptance.refusal(state.incumbent_gate,
                                                   cand.figures())) is not None:
                refusals[cand.id] = refusal
                break
            if self._paired_test_passes(state, cand):
                winner = cand
                break
        for cand in scored:
            if cand is not winner:
                cand.status = CandidateStatus.REJECTED
                cand.reason = cand.reason or refusals.get(cand.id) or gate_comparison(
                    state.incumbent_gate, cand.figures())
        if winner is not None:
            self._promote(state, winner)

    def _paired_test_passes(self, state: EvolveState, cand: CandidateRecord) -> bool:
        before = self._gate_correct(Path(state.incumbent_dir), state.incumbent_hash)
        after = self._gate_correct(*cand.written())
        shared = sorted(set(before) & set(after))
        b = sum(1 for c in shared if before[c] and not after[c])
        c = sum(1 for c in shared if after[c] and not before[c])
        cand.paired_p = mcnemar(b, c).p_exact
        if state.config.require_paired_test and cand.paired_p > state.config.paired_alpha:
            cand.reason = (
                f"gate G improved but paired McNemar p={cand.paired_p:.4f} > "
                f"{state.config.paired_alpha}"
            )
            return False
        return True

    def _promote(self, state: EvolveState, cand: CandidateRecord) -> None:
        skill_dir, skill_hash = cand.written()
        figures = cand.figures()
        if cand.promoted_as is None:
            cand.promoted_as = str(self.skills_root / _next_version(self.skills_root))
            self._save(state)  # decided; a kill from here on re-does the same write
        target = Path(cand.promoted_as)
        parent = Path(state.incumbent_dir)
        _install_version(skill_dir, skill_hash, target, self.run_dir)
        diff = skill_diff(parent, target)
        (self.run_dir / CANDIDATES_DIR / f"{cand.id}.diff").write_text(diff, encoding="utf-8")
        _record_lineage(self.skills_root, target, parent, cand, state)
        cand.status = CandidateStatus.PROMOTED
        state.incumbent_dir = str(target)
        state.incumbent_hash = skill_hash
        state.incumbent_gate = figures
        log.info("promoted", candidate=cand.id, version=target.name, gate_score=figures.gate_score)


def _install_version(source: Path, source_hash: str, target: Path, run_dir: Path) -> None:
    """Put a copy of `source` at `target` atomically (staged in the run dir, then renamed).

    A target that already holds exactly this skill is kept (a resumed promotion); one that holds
    anything else — another run's version, a hand edit — is never overwritten.
    """
    if target.exists():
        if hash_directory(target) != source_hash:
            raise EvolveError(f"{target} already exists with other content; not overwriting it")
        return
    staging = run_dir / "promoting" / target.name
    if staging.exists():
        shutil.rmtree(staging)
    shutil.copytree(source, staging)
    os.rename(staging, target)
    with contextlib.suppress(OSError):  # the staging folder goes once empty
        staging.parent.rmdir()


def skill_diff(old: Path, new: Path) -> str:
    a, b = skill_files(old), skill_files(new)
    chunks: list[str] = []
    for rel in sorted(set(a) | set(b)):
        chunks += difflib.unified_diff(
            a.get(rel, "").splitlines(keepends=True),
            b.get(rel, "").splitlines(keepends=True),
            fromfile=f"{old.name}/{rel}",
            tofile=f"{new.name}/{rel}",
        )
    return "".join(chunks)


def _next_version(skills_root: Path) -> str:
    numbers = [
        int(p.name[1:])
        for p in version_dirs(skills_root)
        if p.name.startswith("v") and p.name[1:].isdigit()
    ]
    return f"v{max(numbers, default=0) + 1}"


def _record_lineage(
    skills_root: Path, target: Path, parent: Path, cand: CandidateRecord, state: EvolveState
) -> None:
    lineage = load_lineage(skills_root)
    lineage.versions = [e for e in lineage.versions if e.version != target.name]
    before = state.incumbent_gate
    lineage.versions.append(
        LineageEntry(
            version=target.name,
            parent=parent.name if parent.parent.resolve() == skills_root.resolve() else str(parent),
            origin=Origin.EVOLVED,
            how=(
                f"evolution round {cand.round}, strategy {cand.strategy.value}, "
                f"optimizer {state.config.optimizer}"
            ),
            created=datetime.now(UTC).date().isoformat(),
            content_hash=hash_directory(target),
            gate=VersionFigures.of(cand.figures()),
            notes=(
                f"gate G before {before.gate_score:.4f} → after {cand.figures().gate_score:.4f}; "
                f"briefs {cand.brief_hashes}; spend so far ${state.spend.total_usd:.4f}; "
                f"rationale: {cand.rationale or ''}"
            )
            if before
            else (cand.rationale or ""),
        )
    )
    (skills_root / LINEAGE_FILE).write_text(
        lineage.model_dump_json(indent=2) + "\n", encoding="utf-8"
    )


def _bundles_json(bundles: dict[Strategy, Bundle]) -> str:
    import json

    return json.dumps(
        {s.value: b.model_dump(mode="json") for s, b in sorted(bundles.items())},
        indent=2,
        sort_keys=True,
    )


def _evidence_texts(dataset: Dataset, case_ids: list[str]) -> list[str]:
    texts: list[str] = []
    for cid in case_ids:
        directory = dataset.evidence_dir(cid)
        if directory.is_dir():
            texts += [
                p.read_text(encoding="utf-8", errors="replace")
                for p in sorted(directory.rglob("*"))
                if p.is_file()
            ]
    return texts
