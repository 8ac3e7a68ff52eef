"""The protocol state of one agent-judge session and the handling of each tool call.

The runner, not the model, enforces the protocol:

- `record_inspection` before a plan exists is refused (violation `inspection_before_plan`);
- an inspection must name a plan item and rest on earlier `bash`/`read_file` calls; each quote
  is checked against those calls' real outputs and recorded as `verified` true/false;
- `submit_verdict` without any inspection is refused (`verdict_before_inspection`);
- a verdict citing nothing or an id not in the log is sent back once for repair; a second bad
  verdict is accepted but marked unsupported;
- `abstain` is refused unless the run allows it;
- unknown tools and malformed tool input get an error tool_result telling the model what went
  wrong; each is counted;
- every tool result's text starts with `call id: <id>`, so a model can cite the ids of its
  calls whatever its chat template shows of them (quotes are checked against the output only);
- a sandbox command's timeout is cut to the time left before the case's wall deadline.

Sandbox failures (`SandboxError`) propagate: the session cannot continue without its sandbox.
"""

from __future__ import annotations

import codecs
import shlex
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from judge_runner.core import Decision, EvidenceRef, Inspection, Plan, PlanItem, RefKind
from judge_runner.judges.agent import tools as t
from judge_runner.judges.agent.evidence import quote_in_output
from judge_runner.sandbox import ExecResult, Sandbox
from judge_runner.text import cut
from judge_runner.untrusted import Fence
from judge_runner.validation import problems

MAX_TOOL_OUTPUT_CHARS = 30_000
WHOLE_READ_BYTES = 4 << 20  # files up to this size are read whole, so pages know the length
READ_CAP_BYTES = 8 << 20  # the most read_file fetches for one page, whatever the file's size
_HEAD_CHARS = 24_000
_TOOL_OUTPUT_CUT = ("\n[... {n} characters cut here; narrow the command or write the output to "
                    "/scratch and page through it with read_file ...]\n")


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    content: str
    is_error: bool = False

    def with_note(self, note: str) -> ToolResult:
        return ToolResult(self.tool_use_id, self.content + note, self.is_error)

    def block(self) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result", "tool_use_id": self.tool_use_id,
            "content": f"call id: {self.tool_use_id}\n{self.content}",
        }
        if self.is_error:
            block["is_error"] = True
        return block


@dataclass
class FinalVerdict:
    decision: Decision
    rationale: str
    citations: list[str]
    unsupported: bool
    confidence: float | None = None  # as stated in submit_verdict


@dataclass
class Session:
    sandbox: Sandbox
    allow_abstain: bool
    plan: Plan | None = None
    plan_revisions: int = 0
    log: list[Inspection] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # tool_use_id -> text the model saw
    tool_calls: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)
    repair_used: bool = False
    final: FinalVerdict | None = None
    wall_end: float | None = None  # time.monotonic() by which the case must end
    fence: Fence | None = None  # the case's boundary around what bash and read_file return

    @property
    def invalid_outputs(self) -> int:
        """Tool calls the runner could not act on at all (unknown tool, malformed input)."""
        return self.violations["unknown_tool"] + self.violations["invalid_tool_input"]

    def handle(self, block: dict[str, Any]) -> ToolResult:
        """Run one tool_use block and return the tool_result to send back."""
        name = str(block.get("name", ""))
        call_id = str(block.get("id", ""))
        self.tool_calls[name] += 1
        handlers: dict[str, tuple[type[BaseModel], Callable[[str, Any], ToolResult]]] = {
            t.BASH: (t.BashInput, self._bash),
            t.READ_FILE: (t.ReadFileInput, self._read_file),
            t.WRITE_PLAN: (t.WritePlanInput, self._write_plan),
            t.RECORD_INSPECTION: (t.RecordInspectionInput, self._record_inspection),
            t.SUBMIT_VERDICT: (t.SubmitVerdictInput, self._submit_verdict),
        }
        if name not in handlers:
            self.violations["unknown_tool"] += 1
            known = ", ".join(handlers)
            return ToolResult(call_id, f"error: unknown tool {name!r}; available: {known}", True)
        schema, handler = handlers[name]
        try:
            args = schema.model_validate(block.get("input"))
        except ValidationError as exc:
            self.violations["invalid_tool_input"] += 1
            return ToolResult(call_id, f"error: invalid input for {name}: "
                                       f"{problems(exc, 'input')}", True)
        return handler(call_id, args)

    # --- inspection tools ------------------------------------------------------------------
    def _bash(self, call_id: str, args: BaseModel) -> ToolResult:
        assert isinstance(args, t.BashInput)
        timeout = args.timeout_s
        if self.wall_end is not None:
            timeout = min(timeout, max(self.wall_end - time.monotonic(), 1.0))
        result = self.sandbox.exec(args.command, timeout=timeout)
        text = _cap(format_exec(result, timeout))
        self.outputs[call_id] = text
        return ToolResult(call_id, self._fenced(text, "what this bash call printed"))

    def _fenced(self, text: str, what: str) -> str:
        """Sandbox output shows the run's files: fenced like every other text of the run."""
        return text if self.fence is None else self.fence.wrap(text, what)

    def _read_file(self, call_id: str, args: BaseModel) -> ToolResult:
        """One page of a file. A large file is fetched only as far as the page needs (at most
        READ_CAP_BYTES), so a file over the sandbox's read limit still pages, with its size in
        bytes; a page beyond that cap is a tool error pointing to bash."""
        assert isinstance(args, t.ReadFileInput)
        # Files up to WHOLE_READ_BYTES are read whole (the header gives their exact length);
        # beyond, 4 bytes per character covers any UTF-8 text up to the end of the page.
        want = min(max((args.offset + args.limit) * 4 + 4, WHOLE_READ_BYTES), READ_CAP_BYTES)
        try:
            data = self.sandbox.read_file(args.path, max_bytes=want)
        except (FileNotFoundError, IsADirectoryError, PermissionError, ValueError) as exc:
            return ToolResult(call_id, f"error: cannot read {args.path}: {exc}", True)
        whole = len(data) < want
        # A prefix may end inside a character: the incremental decoder holds those bytes back.
        text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=whole)
        if whole:
            total = f"{len(text)}"
        else:
            size = self._size(args.path)
            if args.offset >= len(text):
                return ToolResult(
                    call_id, f"error: offset {args.offset} is past the first {len(text)} "
                    f"characters, the most read_file pages through; the file has {size} bytes. "
                    "Use bash (tail -c, grep -n, sed -n) for later parts.", True)
            total = f"more than {len(text)} (the file has {size} bytes)"
        end = min(len(text), args.offset + args.limit)
        page = text[args.offset : end]
        tail = f"next offset {end}" if end < len(text) or not whole else "end of file"
        header = f"[{args.path}: characters {args.offset}-{end} of {total}; {tail}]"
        content = f"{header}\n{page}"
        self.outputs[call_id] = content
        return ToolResult(call_id, f"{header}\n{self._fenced(page, 'this page of the file')}")

    def _size(self, path: str) -> str:
        result = self.sandbox.exec(f"wc -c < {shlex.quote(path)}", timeout=30)
        size = result.stdout.strip()
        return size if result.exit_code == 0 and size.isdigit() else "an unknown number of"

    # --- protocol tools --------------------------------------------------------------------
    def _write_plan(self, call_id: str, args: BaseModel) -> ToolResult:
        assert isinstance(args, t.WritePlanInput)
        ids = [item.id for item in args.items]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            self.violations["invalid_tool_input"] += 1
            return ToolResult(call_id, f"error: duplicate plan item ids {duplicates}", True)
        if self.plan is not None:
            self.plan_revisions += 1
        self.plan = Plan(items=[PlanItem(**item.model_dump()) for item in args.items])
        # Saying what comes next costs a line and keeps small models from rewriting the plan.
        return ToolResult(call_id, f"plan recorded: {len(ids)} items ({', '.join(ids)}). "
                          "Next: run its checks with bash or read_file, then record_inspection.")

    def _record_inspection(self, call_id: str, args: BaseModel) -> ToolResult:
        assert isinstance(args, t.RecordInspectionInput)
        if self.plan is None:
            self.violations["inspection_before_plan"] += 1
            return ToolResult(call_id, "error: no plan yet; call write_plan first", True)
        plan_ids = [item.id for item in self.plan.items]
        if args.plan_item not in plan_ids:
            self.violations["unknown_plan_item"] += 1
            return ToolResult(
                call_id, f"error: plan item {args.plan_item!r} not in plan {plan_ids}", True
            )
        unknown = [e.tool_call_id for e in args.evidence if e.tool_call_id not in self.outputs]
        if unknown:
            self.violations["unknown_evidence_call"] += 1
            return ToolResult(
                call_id,
                f"error: evidence cites {unknown}, which are not ids of your earlier bash or "
                "read_file calls",
                True,
            )
        refs = [
            EvidenceRef(
                kind=RefKind.TOOL_CALL, ref=e.tool_call_id, quote=e.quote,
                verified=quote_in_output(e.quote, self.outputs[e.tool_call_id]),
            )
            for e in args.evidence
        ]
        unverified = sum(1 for r in refs if not r.verified)
        self.violations["unverified_quote"] += unverified
        inspection = Inspection(
            id=f"I{len(self.log) + 1}", plan_item=args.plan_item, check=args.check,
            finding=args.finding, outcome=args.outcome, critical=args.critical, evidence=refs,
        )
        self.log.append(inspection)
        note = (
            f"; {unverified} quote(s) NOT found in the cited output (flagged as unverified)"
            if unverified else "; all quotes verified"
        )
        return ToolResult(call_id, f"recorded as {inspection.id}{note}")

    def _submit_verdict(self, call_id: str, args: BaseModel) -> ToolResult:
        assert isinstance(args, t.SubmitVerdictInput)
        if args.decision == "abstain" and not self.allow_abstain:
            self.violations["abstain_not_allowed"] += 1
            return ToolResult(call_id, "error: abstain is not enabled; decide pass or fail", True)
        if not self.log:
            self.violations["verdict_before_inspection"] += 1
            return ToolResult(
                call_id, "error: no inspections recorded; inspect and record before deciding",
                True,
            )
        known = {i.id for i in self.log}
        bad = [c for c in args.citations if c not in known]
        if not args.citations or bad:
            self.violations["unknown_citation" if bad else "uncited_verdict"] += 1
            if not self.repair_used:
                self.repair_used = True
                problem = f"unknown ids {bad}" if bad else "no citations"
                return ToolResult(
                    call_id,
                    f"error: verdict rejected ({problem}); cite ids from the log: "
                    f"{sorted(known, key=_id_order)}. Submit again.",
                    True,
                )
        self.final = FinalVerdict(
            decision=Decision(args.decision), rationale=args.rationale,
            citations=list(args.citations),
            unsupported=bool(not args.citations or bad),
            confidence=args.confidence,
        )
        return ToolResult(call_id, "verdict recorded")


def format_exec(result: ExecResult, timeout_s: float) -> str:
    status = (
        f"timed out after {timeout_s:g}s" if result.timed_out else f"exit code {result.exit_code}"
    )
    parts = [status, "--- stdout ---", result.stdout]
    if result.stderr:
        parts += ["--- stderr ---", result.stderr]
    return "\n".join(parts)


def _cap(text: str) -> str:
    """Cut very long output head+tail with an explicit marker (never silently)."""
    return cut(text, MAX_TOOL_OUTPUT_CHARS, head=_HEAD_CHARS, marker=_TOOL_OUTPUT_CUT)[0]


def _id_order(inspection_id: str) -> int:
    digits = inspection_id[1:]
    return int(digits) if digits.isdigit() else 0
