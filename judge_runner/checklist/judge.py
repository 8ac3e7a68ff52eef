"""The checklist judge (``--judge checklist``): each item of the task's frozen checklist judged
from the execution log, and a decision from the raw credit.

Per case it writes the usual products:

- ``plan.md``: one plan entry per checklist item, in checklist order;
- ``inspection_log.jsonl``: one inspection per item judgment (yes → supports, no → refutes,
  abstain → inconclusive) with its citations, each checked against the log (``verified``);
- ``verdict.json``: the decision, ``score`` = the raw credit, and ``details["checklist"]``
  (`ChecklistDetails`: the items as judged, raw credit, coverage) from which the metrics stage
  computes the outcome step and the partial-credit scores;
- ``transcript.jsonl``: the item judge's model calls (none for ``--model offline``).

Decision, from the judgments alone (no label is read, see `score.py` for what the model sees):
abstain when no item was decided or the coverage (decided items / items) is below
``min_coverage``; else pass when the raw credit (Yes / (Yes + No)) is at least ``threshold``,
fail otherwise. A case without a usable checklist, an unreadable package or a failed model call
is an ERROR verdict naming the reason, never a decision.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from judge_runner.cases import CasePackage
from judge_runner.checklist.evidence import load_log
from judge_runner.checklist.models import (
    CaseJudgments,
    Checklist,
    ChecklistItem,
    ChecklistLoadError,
    EvidenceCite,
    ItemJudgment,
    Label,
    checklist_path,
    read_checklist,
)
from judge_runner.checklist.outcome import ChecklistDetails, JudgedItem
from judge_runner.checklist.score import ChecklistScorer, build_request
from judge_runner.core import RefKind, Usage
from judge_runner.judges import (
    Call,
    CaseCalls,
    ClientFactory,
    Decision,
    EvidenceRef,
    Inspection,
    JudgeConfigError,
    ModelJudgeSettings,
    Outcome,
    Plan,
    PlanItem,
    Verdict,
    client_factory,
    request_tokens,
    takes,
    write_products,
)

NAME = "checklist"
OFFLINE = "offline"  # --model offline: mechanical items only, no model call
DEFAULT_THRESHOLD = 0.5
DEFAULT_MIN_COVERAGE = 0.25

_OUTCOMES = {Label.YES: Outcome.SUPPORTS, Label.NO: Outcome.REFUTES,
             Label.ABSTAIN: Outcome.INCONCLUSIVE}
_LABELS = {v: k for k, v in _OUTCOMES.items()}
_REF_KINDS = {"step": RefKind.STEP, "artifact": RefKind.ARTIFACT, "report": RefKind.REPORT}


class ChecklistSettings(ModelJudgeSettings):
    """Options of the checklist judge (`-o KEY=VALUE` for the knobs).

    checklists: folder of frozen ``<task>.json`` checklists (required);
    model: the item judge's model, or ``offline`` for the mechanical items only;
    threshold: raw credit at or above which the case passes (default 0.5);
    min_coverage: share of items that must be decided, else abstain (default 0.25);
    max_rounds: model submissions per case, repair turns included (default 2).
    """

    checklists: Path | None = None
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.0, le=1.0)
    min_coverage: float = Field(default=DEFAULT_MIN_COVERAGE, ge=0.0, le=1.0)
    max_rounds: int = Field(default=2, ge=1)

    @model_validator(mode="after")
    def _offline_calls_nothing(self) -> ChecklistSettings:
        if self.model == OFFLINE and (self.base_url or self.replay):
            raise ValueError("--model offline calls no model: leave out --base-url and --replay")
        return self

    def case_calls(self, case: CasePackage) -> CaseCalls | None:
        """The item judge's request on `case`: its checklist's items without a mechanical check
        and the rendered log (`score.build_request`), answered within the request's max_tokens
        (a repair round is not counted). No call offline, for a task without a usable
        checklist, or when every item has a mechanical check; None without a checklists folder
        or a model (no judge can be built)."""
        if self.checklists is None or not self.model:
            return None
        if self.model == OFFLINE:
            return CaseCalls()
        checklist = checklist_for(self.checklists, case.meta.task)
        items = [i for i in checklist.ordered() if i.check is None] if checklist else []
        if not items:
            return CaseCalls()
        request = build_request(load_log(case), items, self.model)
        return CaseCalls((Call(self.model, request_tokens(request), request.max_tokens),))


def load_checklists(folder: Path) -> tuple[dict[str, Checklist], dict[str, str]]:
    """Frozen checklists of `folder` by task, and for each `<task>.json` that cannot be used the
    reason (invalid, edited after freezing, or written for another task). `*.errors.json` (a
    failed synthesis) is skipped: its task has no checklist."""
    found: dict[str, Checklist] = {}
    problems: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".errors.json"):
            continue
        try:
            checklist = _read_task_checklist(path)
        except ChecklistLoadError as exc:
            problems[path.stem] = str(exc)
            continue
        found[checklist.task] = checklist
    return found, problems


def checklist_for(folder: Path, task: str) -> Checklist | None:
    """The usable checklist of `task` in `folder` (what `load_checklists` finds for it), None
    when there is no `<task>.json`; ChecklistLoadError when it cannot be used."""
    path = checklist_path(folder, task)
    return _read_task_checklist(path) if path.is_file() else None


def _read_task_checklist(path: Path) -> Checklist:
    checklist = read_checklist(path)
    if checklist.task != path.stem:
        raise ChecklistLoadError(f"{path}: holds the checklist of task {checklist.task!r}")
    return checklist


@dataclass(frozen=True)
class ChecklistJudge:
    """Judges cases against frozen checklists; see the module docstring.

    checklists / problems: loaded by `load_checklists`; folder: where they were read;
    model: the item judge's model (None: offline); clients: per-case recorded client;
    threshold, min_coverage, max_rounds: as in `ChecklistSettings`.
    """

    checklists: dict[str, Checklist]
    problems: dict[str, str]
    folder: Path
    model: str | None = None
    clients: ClientFactory | None = None
    threshold: float = DEFAULT_THRESHOLD
    min_coverage: float = DEFAULT_MIN_COVERAGE
    max_rounds: int = 2
    name: str = NAME

    def config(self) -> dict[str, Any]:
        return {"judge": self.name, "model": self.model or OFFLINE,
                "checklists": {t: c.content_hash for t, c in sorted(self.checklists.items())},
                "threshold": self.threshold, "min_coverage": self.min_coverage,
                "max_rounds": self.max_rounds, "temperature": 0.0}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        plan, log, verdict = self._decide(case, out_dir)
        verdict.duration_s = round(time.monotonic() - started, 3)
        write_products(out_dir, plan, log, verdict)
        return verdict

    def _decide(self, case: CasePackage, out_dir: Path
                ) -> tuple[Plan | None, list[Inspection], Verdict]:
        case_id = case.root.name

        def error(reason: str, usage: Usage | None = None) -> tuple[None, list[Inspection],
                                                                    Verdict]:
            return None, [], Verdict(case_id=case_id, judge=self.name, decision=Decision.ERROR,
                                     error=reason, usage=usage or Usage())

        client = self.clients(out_dir) if self.clients is not None else None  # first: it
        # replaces an earlier attempt's transcript
        try:
            meta = case.meta
            execution = load_log(case)
        except (OSError, ValueError) as exc:
            return error(f"unreadable case package {case.root}: {exc}")
        checklist = self.checklists.get(meta.task)
        if checklist is None:
            return error(self.problems.get(meta.task)
                         or f"no checklist for task {meta.task} in {self.folder}")
        scorer = ChecklistScorer(client, self.model, self.max_rounds)
        judged = scorer.score(execution, checklist)
        usage = Usage.model_validate(judged.usage)
        if judged.error is not None:
            return error(judged.error, usage)
        items = [JudgedItem.of(item, j) for item, j in
                 zip(checklist.ordered(), judged.judgments, strict=True)]
        details = ChecklistDetails(task=checklist.task, checklist_hash=checklist.content_hash,
                                   model=self.model or OFFLINE, threshold=self.threshold,
                                   min_coverage=self.min_coverage, items=items,
                                   with_skills=meta.with_skills, agent_model=meta.source.model)
        log = inspections(checklist, judged, self.model)
        decision, rationale = self._decision(details)
        cites = [c for j in judged.judgments for c in j.evidence if c.quote]
        verdict = Verdict(
            case_id=case_id, judge=self.name, decision=decision, rationale=rationale,
            citations=[i.id for i in log if i.outcome is not Outcome.INCONCLUSIVE],
            score=details.raw_credit, usage=usage,
            details={"model": self.model or OFFLINE, "checklist": details.model_dump(mode="json"),
                     "evidence": {"quotes": len(cites),
                                  "verified": sum(1 for c in cites if c.verified)}})
        return plan_of(checklist), log, verdict

    def _decision(self, details: ChecklistDetails) -> tuple[Decision, str]:
        raw, coverage = details.raw_credit, details.coverage
        counts = f"{details.yes} yes, {details.no} no, {details.abstain} abstain"
        if raw is None:
            return Decision.ABSTAIN, f"no item decided from the log ({counts})"
        if coverage < self.min_coverage:
            return Decision.ABSTAIN, (f"coverage {coverage:.3f} is below {self.min_coverage} "
                                      f"({counts}); raw credit {raw:.3f} not used")
        passed = raw >= self.threshold
        return (Decision.PASS if passed else Decision.FAIL,
                f"raw credit {raw:.3f} {'≥' if passed else '<'} threshold {self.threshold} "
                f"({counts}, coverage {coverage:.3f})")


def plan_of(checklist: Checklist) -> Plan:
    """The checklist as an inspection plan: one entry per item, in checklist order."""
    return Plan(items=[PlanItem(id=item.id, what=item.requirement, where=_where(item),
                                support="the log shows it holds (a verified quote of a step "
                                        "or an artifact)",
                                refute="the log shows it does not hold")
                       for item in checklist.ordered()])


def _where(item: ChecklistItem) -> str:
    if item.check is not None:
        return f"{item.check.kind} check of artifact {item.check.path}"
    return "the execution log: steps, final report, artifacts"


def inspections(checklist: Checklist, judged: CaseJudgments, model: str | None
                ) -> list[Inspection]:
    """One inspection per item judgment, in checklist order (I1 judges the first item)."""
    by_id = {j.item_id: j for j in judged.judgments}
    log = []
    for n, item in enumerate(checklist.ordered(), start=1):
        j = by_id[item.id]
        if item.check is not None:
            how = f"code: {item.check.kind} on {item.check.path}"
        elif model is not None:
            how = f"model {model} read the execution log"
        else:
            how = "not judged: offline run (no item judge model)"
        log.append(Inspection(id=f"I{n}", plan_item=item.id, check=how, finding=j.reason,
                              outcome=_OUTCOMES[j.label],
                              evidence=[_ref(c) for c in j.evidence]))
    return log


def _ref(cite: EvidenceCite) -> EvidenceRef:
    return EvidenceRef(kind=_REF_KINDS[cite.kind], ref=cite.ref, quote=cite.quote or None,
                       verified=cite.verified)


def judgment_of(inspection: Inspection, source: str) -> ItemJudgment:
    """The item judgment an inspection records (the perturbation check re-judges these)."""
    cites = [EvidenceCite(kind=ref.kind.value,  # step, artifact or report
                          ref=ref.ref, quote=ref.quote or "", verified=bool(ref.verified))
             for ref in inspection.evidence if ref.kind.value in _REF_KINDS]
    return ItemJudgment.model_validate({"item_id": inspection.plan_item,
                                        "label": _LABELS[inspection.outcome], "source": source,
                                        "reason": inspection.finding, "evidence": cites})


def recorded_judgments(case_id: str, details: ChecklistDetails, log: Sequence[Inspection]
                       ) -> CaseJudgments:
    """The item judgments of a judged case, read back from its details and inspection log."""
    sources = {i.id: i.source.value for i in details.items}
    return CaseJudgments(case_id=case_id, task=details.task,
                         checklist_hash=details.checklist_hash,
                         judgments=[judgment_of(i, sources.get(i.plan_item, "model"))
                                    for i in log])


@takes(ChecklistSettings, NAME)
def make_judge(settings: ChecklistSettings) -> ChecklistJudge:
    """Raises JudgeConfigError without a checklists folder (or an unreadable one, or one holding
    no usable checklist) or without a model (``--model offline`` for mechanical items only), and
    ModelError when a live client cannot be made (no API key for a remote server)."""
    if settings.checklists is None:
        raise JudgeConfigError("the checklist judge needs its frozen checklists: "
                               "-o checklists=DIR")
    if not settings.checklists.is_dir():
        raise JudgeConfigError(f"checklists folder {settings.checklists} does not exist")
    if not settings.model:
        raise JudgeConfigError("the checklist judge needs an item judge model (--model M), or "
                               "--model offline to decide the mechanical items only")
    checklists, problems = load_checklists(settings.checklists)
    if not checklists:
        found = "; ".join(problems.values()) or "no <task>.json"
        raise JudgeConfigError(f"no usable checklist in {settings.checklists}: {found}")
    offline = settings.model == OFFLINE
    return ChecklistJudge(
        checklists=checklists, problems=problems, folder=settings.checklists,
        model=None if offline else settings.model,
        clients=None if offline else client_factory(settings),
        threshold=settings.threshold, min_coverage=settings.min_coverage,
        max_rounds=settings.max_rounds)
