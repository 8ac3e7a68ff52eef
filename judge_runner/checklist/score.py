"""Scoring one case against its frozen checklist: Yes / No / Abstain per item, with evidence.

Items with a mechanical check are decided by code (`mechanical.py`), offline. The other items
go to a model in one request per case holding the checklist items and the execution log (steps,
final report, artifact contents) — never the official outcome, verifier output, or verifier test
names. The model answers through the `record_judgments` tool.

Evidence rules applied to the model's answer, by code:

- every citation is checked against the log (the step, artifact or final report exists and
  holds the quote);
- a Yes or No without at least one verified citation of the trace (a step or an artifact)
  becomes Abstain ("uncited"), because a judgment the log cannot back is not evidence. The one
  exception: a No of the claim-versus-trace item may rest on a verified quote of the final
  report, since the unbacked claim is itself the evidence there (absence from the trace cannot
  be quoted);
- items the model leaves out after one repair turn become Abstain with that reason.

A case whose model call fails for good is returned with `error` set and no judgments: it is
reported as an error, never scored as No.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from judge_runner.checklist.conversation import follow_up, tool_call
from judge_runner.checklist.evidence import ExecutionLog
from judge_runner.checklist.mechanical import run_check
from judge_runner.checklist.models import (
    CaseJudgments,
    Checklist,
    ChecklistItem,
    EvidenceCite,
    ItemJudgment,
    ItemKind,
    JudgmentSource,
    Label,
)
from judge_runner.core import Usage
from judge_runner.models import ModelClient, ModelError, ModelRequest
from judge_runner.text import CUT, cut
from judge_runner.untrusted import TRUST_RULE, Fence
from judge_runner.validation import problems as validation_problems

TOOL_NAME = "record_judgments"
MAX_STEP_CHARS = 6_000
MAX_ARTIFACT_CHARS = 30_000
MAX_LOG_CHARS = 400_000

_SYSTEM = """You check one finished agent run against a checklist of requirements.

Decide each item from the execution log alone: the recorded steps (tool calls and their
outputs), the final report, and the contents of files the run wrote. Rules:

- yes: the log shows the requirement was met. no: the log shows it was not met.
- abstain: the log does not show enough to decide (the relevant output is missing, cut, or was
  never displayed). Missing evidence is not a failure; do not guess.
- The agent's own statements in its messages or final report are claims, not evidence. Credit a
  requirement only from tool output or file content that shows it.
- For the claim-versus-trace item, list the substantive claims of the final report and look for
  the trace entry behind each; a claim with no matching entry makes that item no.
- Cite evidence for every yes and no: kind "step" with the step number, or kind "artifact" with
  the file path, and a short quote copied exactly from that step or file. For a claim-versus-trace
  no, quote the unbacked claim with kind "report" (ref "final"); a quote of the final report
  backs nothing else.

Record all items with one call to record_judgments.

""" + TRUST_RULE


class _Cite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["step", "artifact", "report"]
    ref: str
    quote: str


class _Judgment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_id: str
    label: Label
    reason: str
    evidence: list[_Cite] = []


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judgments: list[_Judgment]


def tool_schema() -> dict[str, Any]:
    return {"name": TOOL_NAME, "description": "Record a judgment for every checklist item.",
            "input_schema": _Payload.model_json_schema()}


def log_fence(log: ExecutionLog) -> Fence:
    """The boundary around the run's text in this log's prompt: a hash of that text."""
    return Fence.of(log.case_id, *log.steps, log.final_message or "",
                    *(f"{a.path}\0{a.text or a.note}" for a in log.artifacts))


def render_log(log: ExecutionLog, max_chars: int = MAX_LOG_CHARS) -> str:
    """The log as the judge reads it, every text of the run fenced (`log_fence`). Over budget,
    middle steps are dropped with a marker, so the judge knows evidence may be missing and
    abstains instead of assuming."""
    fence = log_fence(log)
    steps = [_step(i, cut(text, MAX_STEP_CHARS, marker=CUT)[0], fence)
             for i, text in enumerate(log.steps)]
    artifacts = []
    for a in log.artifacts:
        body = fence.wrap(cut(a.text, MAX_ARTIFACT_CHARS, marker=CUT)[0], "its content") \
            if a.text is not None else f"({a.note})"
        artifacts.append(f"<artifact path={fence.inline(a.path)}>\n{body}\n</artifact>")
    final = fence.wrap(log.final_message, "the final report") if log.final_message \
        else "(no final report)"
    tail = ["", "<final_report>", final, "</final_report>",
            "", "<artifacts>", *(artifacts or ["(none)"]), "</artifacts>"]
    head = [fence.declaration(), "", "<steps>"]
    budget = max_chars - sum(len(t) + 1 for t in [*head, *tail]) - len("</steps>") - 1
    kept = _fit_steps(steps, budget)
    return "\n".join([*head, *kept, "</steps>", *tail])


def _step(index: int, text: str, fence: Fence) -> str:
    """`[step i] <our header line>`, then the step's text from the run, fenced."""
    header, _, body = text.partition("\n")
    return f"[step {index}] {header}" + (f"\n{fence.wrap(body, f'step {index}')}" if body else "")


def _fit_steps(steps: list[str], budget: int) -> list[str]:
    if sum(len(s) + 1 for s in steps) <= budget:
        return steps
    head: list[str] = []
    tail: list[str] = []
    used = 0
    lo, hi = 0, len(steps) - 1
    while lo <= hi:  # alternate head and tail so the start and the end both stay visible
        pick = steps[lo] if len(head) <= len(tail) else steps[hi]
        if used + len(pick) + 1 > budget:
            break
        used += len(pick) + 1
        if len(head) <= len(tail):
            head.append(pick)
            lo += 1
        else:
            tail.append(pick)
            hi -= 1
    dropped = len(steps) - len(head) - len(tail)
    return [*head, f"[... {dropped} steps not shown: over the length budget ...]", *tail[::-1]]


def items_prompt(items: Sequence[ChecklistItem]) -> str:
    lines = ["Checklist items to judge:"]
    for item in items:
        lines.append(f"- {item.id} ({item.kind.value}): {item.requirement}")
        if item.quote:
            lines.append(f"  instruction says: \"{item.quote}\"")
    return "\n".join(lines)


def build_request(log: ExecutionLog, items: Sequence[ChecklistItem], model: str) -> ModelRequest:
    user = f"{items_prompt(items)}\n\nExecution log of the run:\n{render_log(log)}"
    return ModelRequest(
        model=model,
        system=[{"type": "text", "text": _SYSTEM, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": [{"type": "text", "text": user}]}],
        tools=[tool_schema()],
        tool_choice={"type": "tool", "name": TOOL_NAME},
        max_tokens=8192,
        temperature=0.0,
    )


class UnusableAnswerError(ModelError):
    """Every round's answer was unusable (after the repair turns); `.usage` is what they spent."""

    def __init__(self, message: str, *, attempts: int, usage: Usage) -> None:
        super().__init__(message, attempts=attempts)
        self.spent = usage

    @property
    def usage(self) -> Usage:
        return self.spent


@dataclass
class ChecklistScorer:
    """Scores cases against checklists. Thread-safe when `client` is.

    client/model: the judge model; None for an offline run, where only mechanically checkable
    items are decided and the others are recorded as skipped (Abstain).
    max_rounds: model submissions per case, including repair turns (default 2).
    """

    client: ModelClient | None = None
    model: str | None = None
    max_rounds: int = 2

    def score(self, log: ExecutionLog, checklist: Checklist) -> CaseJudgments:
        mechanical = {i.id: run_check(i.id, i.check, log)
                      for i in checklist.ordered() if i.check is not None}
        rest = [i for i in checklist.ordered() if i.check is None]
        try:
            judged, usage = self._judge(log, rest)
        except UnusableAnswerError as exc:
            return CaseJudgments(case_id=log.case_id, task=log.task,
                                 checklist_hash=checklist.content_hash,
                                 error=f"unparseable output: {exc}",
                                 usage=exc.usage.model_dump(exclude_defaults=True))
        except ModelError as exc:
            return CaseJudgments(case_id=log.case_id, task=log.task,
                                 checklist_hash=checklist.content_hash,
                                 error=f"judge model failed: {exc}",
                                 usage=exc.usage.model_dump(exclude_defaults=True))
        by_id = {**mechanical, **judged}
        return CaseJudgments(
            case_id=log.case_id, task=log.task, checklist_hash=checklist.content_hash,
            judgments=[by_id[i.id] for i in checklist.ordered()],
            usage=usage.model_dump(exclude_defaults=True),
        )

    def rescore(self, log: ExecutionLog, item: ChecklistItem) -> ItemJudgment:
        """Judge a single item again (used by the perturbation check). Raises ModelError."""
        if item.check is not None:
            return run_check(item.id, item.check, log)
        return self._judge(log, [item])[0][item.id]

    def _judge(
        self, log: ExecutionLog, items: Sequence[ChecklistItem]
    ) -> tuple[dict[str, ItemJudgment], Usage]:
        if not items:
            return {}, Usage()
        if self.client is None or self.model is None:
            return {i.id: ItemJudgment(item_id=i.id, label=Label.ABSTAIN,
                                       source=JudgmentSource.SKIPPED,
                                       reason="not judged: offline run (no judge model)")
                    for i in items}, Usage()
        wanted = {i.id for i in items}
        kinds = {i.id: i.kind for i in items}
        found: dict[str, ItemJudgment] = {}
        request = build_request(log, items, self.model)
        usage = Usage()
        parsed_any = False
        problems: list[str] = []
        for _ in range(self.max_rounds):
            try:
                response = self.client.complete(request)
            except ModelError as exc:
                exc.prior = exc.prior + usage
                raise
            usage = usage + response.usage
            block = tool_call(response.content, TOOL_NAME)
            problem = "no record_judgments call was made"
            if block is not None:
                try:
                    payload = _Payload.model_validate(block.get("input"))
                except ValidationError as exc:
                    problem = ("the call does not match the tool schema: "
                               + validation_problems(exc, "input"))
                else:
                    parsed_any = True
                    for j in payload.judgments:
                        if j.item_id in wanted and j.item_id not in found:
                            found[j.item_id] = self._checked(log, j, kinds[j.item_id])
                    missing = sorted(wanted - set(found))
                    if not missing:
                        break
                    problem = f"items without a judgment: {', '.join(missing)}"
            problems.append(problem.splitlines()[0])
            request = follow_up(request, response.content, block, f"{problem}. Call "
                                f"{TOOL_NAME} again with a judgment for every listed item.")
        if not parsed_any:
            # No round gave a record_judgments call matching its schema: that is an error of
            # the judge, not an abstention on the items.
            raise UnusableAnswerError(f"no usable {TOOL_NAME} call in {self.max_rounds} "
                                      f"round(s): {'; '.join(problems)}", attempts=1,
                                      usage=usage)
        for item_id in sorted(wanted - set(found)):
            found[item_id] = ItemJudgment(item_id=item_id, label=Label.ABSTAIN,
                                          source=JudgmentSource.MODEL,
                                          reason="the judge gave no usable judgment")
        return found, usage

    @staticmethod
    def _checked(log: ExecutionLog, j: _Judgment, kind: ItemKind) -> ItemJudgment:
        cites = [log.verify(EvidenceCite(kind=c.kind, ref=c.ref, quote=c.quote))
                 for c in j.evidence]
        label, reason = j.label, j.reason
        claim_no = kind is ItemKind.CLAIM_TRACE and label is Label.NO
        backed = any(c.verified and (c.kind != "report" or claim_no) for c in cites)
        if label is not Label.ABSTAIN and not backed:
            reason = f"uncited {j.label.value}: no verified quote of the trace; {j.reason}"
            label = Label.ABSTAIN
        return ItemJudgment(item_id=j.item_id, label=label, source=JudgmentSource.MODEL,
                            reason=reason, evidence=cites)

