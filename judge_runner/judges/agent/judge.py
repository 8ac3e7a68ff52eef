"""The agent judge: a tool-use loop that plans, inspects the case in its sandbox and decides.

Failure modes, each ending as `Decision.ERROR` with a reason (never a silent pass or fail):

- the case package cannot be read, or the sandbox cannot be opened or dies (`SandboxError`);
- a model call fails for good (`ModelError`, after the client's retries);
- a budget runs out: turns (model calls), tokens (input + cached + output), wall time, or the
  context: the next request would not leave `min_answer_tokens` for an answer within
  `max_context_tokens` (estimated at 3 characters per token, on the safe side of real
  tokenizers). The wall budget also bounds each model call (its timeout and its retries are cut
  to the time left, see `models/deadline.py`) and each sandbox command, so a case ends within
  `max_wall_s` plus the slack of closing one HTTP connection or stopping one command (≈1-2 s);
- the model repeats itself: the second identical tool call (same tool, same input) is answered
  with a nudge, the `max_identical_calls`-th ends the session ("stalled: 3 identical write_plan
  calls");
- the model keeps producing output the runner cannot act on: too many unknown tools or
  malformed tool inputs, or it stops calling tools without submitting a verdict;
- the run is cancelled (Ctrl-C, SIGTERM): checked before each model call and after each tool
  call, so a session stops once its current call returns; the reason is `cancel.CANCELLED`.

With `sessions` above one, each case is judged by that many sessions and decided by their vote
(`voting.py`); every budget above is per session.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner import cancel
from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.judges.agent import events, prompt, voting
from judge_runner.judges.agent.session import Session
from judge_runner.judges.agent.tools import DEFAULT_PAGE_CHARS, tool_definitions
from judge_runner.judges.annotators import Annotators
from judge_runner.judges.llm import ClientFactory, SandboxFactory
from judge_runner.judges.products import TRANSCRIPT_FILE, write_cancelled, write_products
from judge_runner.log import get_logger
from judge_runner.models import (
    ModelClient,
    ModelError,
    ModelRequest,
    deadline,
    system_blocks,
    with_conversation_breakpoint,
)
from judge_runner.sandbox import SandboxError, SandboxKind
from judge_runner.skills import JudgeSkill
from judge_runner.text import sha256_text

log = get_logger(__name__)

CHARS_PER_TOKEN = 3  # for the context check: more tokens than the 4 of `estimate_tokens`
REPEAT_NUDGE = (
    "\n\nnote: this call is identical to your earlier call {first}; repeating it gives the same "
    "result. Go on with the next step of your plan (inspect with bash/read_file, "
    "record_inspection, submit_verdict); one more identical call ends the session."
)
CUT_NOTE = (
    "\n\nnote: your answer reached the output cap of {cap} tokens and was cut off, so this "
    "call is probably incomplete. Make shorter calls (fewer and shorter items or arguments)."
)
NUDGE = (
    "Continue with your tools: write_plan, inspect with bash/read_file, record_inspection, "
    "and finish with submit_verdict. Plain text is not read as a verdict."
)


class Budgets(BaseModel):
    """Limits of one session. Defaults suit trajectories up to a few hundred steps."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_turns: int = Field(default=40, gt=0)  # model calls
    max_total_tokens: int = Field(default=2_000_000, gt=0)  # input + cached + output, summed
    max_wall_s: float = Field(default=1200.0, gt=0)
    max_invalid: int = Field(default=6, ge=0)  # unknown tools + malformed inputs tolerated
    max_nudges: int = Field(default=2, ge=0)  # text-only answers tolerated
    max_output_tokens: int = Field(default=4096, gt=0)  # per call
    max_context_tokens: int = Field(default=200_000, gt=0)  # the model's context window
    min_answer_tokens: int = Field(default=256, gt=0)  # room an answer needs in the context
    max_identical_calls: int = Field(default=3, ge=2)  # the same call this often ends a session


class SessionError(Exception):
    """Ends a session with Decision.ERROR; the message is the verdict's reason."""


@dataclass(frozen=True)
class AgentJudge:
    """The agent judge. Thread-safe: all per-case state lives in a Session.

    model: model name sent to the Messages API.
    skill: the JudgeSkill followed, or None (agent judge without JudgeSkill).
    clients: makes the (recorded) ModelClient of a case.
    sandboxes: opens the Sandbox of a case.
    allow_abstain: offer `abstain` (off by default).
    budgets: turn/token/time limits.
    sandbox: the sandbox kind asked for (docker | local | auto | ...), part of the
        configuration; each verdict's `details["sandbox"]` records the kind actually used and
        whether it isolated the commands (auto falls back to local without Docker).
    sessions: how many sessions judge each case and the examples that tell them apart
        (`annotators.py`, `voting.py`); default one session, whose stated confidence is the
        verdict's.
    """

    model: str
    skill: JudgeSkill | None
    clients: ClientFactory
    sandboxes: SandboxFactory
    allow_abstain: bool = False
    budgets: Budgets = field(default_factory=Budgets)
    name: str = "agent"
    sandbox: SandboxKind = SandboxKind.AUTO
    sessions: Annotators = field(default_factory=Annotators)

    @property
    def system_prompt(self) -> str:
        return prompt.render_system(self.skill, self.allow_abstain)

    @property
    def tools(self) -> list[dict[str, Any]]:
        return tool_definitions(self.allow_abstain)

    @property
    def skill_dir(self) -> Path | None:
        """The folder of the JudgeSkill this judge follows (None: judging without one)."""
        return None if self.skill is None else self.skill.path

    def config(self) -> dict[str, Any]:
        return {
            "judge": self.name,
            "model": self.model,
            "skill": None if self.skill is None else {
                "name": self.skill.name, "version": self.skill.version,
                "hash": self.skill.content_hash,
            },
            "allow_abstain": self.allow_abstain,
            "budgets": self.budgets.model_dump(),
            "sandbox": self.sandbox.configured_as.value,
            "system_sha256": sha256_text(self.system_prompt),
            "temperature": 0.0,
        } | self.sessions.config("sessions")

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        """Judge one case; writes plan.md, inspection_log.jsonl, verdict.json, transcript.jsonl."""
        return self.judge_briefed(case, out_dir, "")

    def judge_briefed(self, case: CasePackage, out_dir: Path, briefing: str) -> Verdict:
        """`judge` with another judge's findings (see `briefing.py`) after the case overview."""
        if self.sessions.k == 1:
            return self._session(case, out_dir, briefing, 0)[0]
        started = time.monotonic()
        # A single session of an earlier attempt recorded here; replay must not find it.
        (out_dir / TRANSCRIPT_FILE).unlink(missing_ok=True)
        outcomes: list[tuple[Verdict, Session | None]] = []
        for index in range(self.sessions.k):
            outcome = self._session(case, out_dir / voting.folder(index), briefing, index)
            if outcome[0].error == cancel.CANCELLED:
                write_cancelled(out_dir)
                return outcome[0]
            outcomes.append(outcome)
        verdict, shown = voting.combine(outcomes, self.name, time.monotonic() - started)
        write_products(out_dir, shown.plan if shown else None, shown.log if shown else [],
                       verdict)
        log.info("voted", case=verdict.case_id, judge=self.name,
                 decision=verdict.decision.value, error=verdict.error)
        return verdict

    def _session(self, case: CasePackage, out_dir: Path, briefing: str,
                 index: int) -> tuple[Verdict, Session | None]:
        """One session (example set `index`) with its products in `out_dir`: its verdict, and
        its state when it got as far as opening the sandbox."""
        started = time.monotonic()
        run = _Run(self, started)
        case_id = case.root.name
        system_text = self.system_prompt
        try:
            # The client starts this case's transcript afresh (replacing an earlier attempt's),
            # so it is made before the start event is written into that transcript.
            client = self.clients(out_dir)
            events.start(out_dir, case_id, sha256_text(system_text),
                         [t["name"] for t in self.tools])
            try:
                overview = prompt.render_case(case, DEFAULT_PAGE_CHARS)
                overview += self.sessions.section(index, case, "write_plan")
                if briefing:
                    overview = f"{overview}\n\n{briefing}"
                case_id = case.id
            except (OSError, ValueError, ValidationError) as exc:
                raise SessionError(f"case package unreadable: {exc}") from None
            try:
                sandbox = self.sandboxes(case)
            except (SandboxError, OSError) as exc:
                raise SessionError(f"sandbox could not be opened: {exc}") from None
            wall_end = started + self.budgets.max_wall_s
            with sandbox, deadline.until(wall_end):
                run.session = Session(sandbox=sandbox, allow_abstain=self.allow_abstain,
                                      wall_end=wall_end, fence=case.fence)
                run.loop(client, system_text, overview)
        except SessionError as exc:
            run.error = str(exc)
        except SandboxError as exc:
            run.error = f"sandbox failed: {exc}"
        except ModelError as exc:
            run.usage = run.usage + exc.usage
            elapsed = time.monotonic() - started
            if elapsed >= self.budgets.max_wall_s - deadline.MIN_ATTEMPT_S:
                run.error = (f"budget exhausted: {elapsed:.0f}s wall time (limit "
                             f"{self.budgets.max_wall_s:g}s) during a model call: {exc}")
            else:
                run.error = f"model call failed: {exc}"
        except cancel.Cancelled:
            run.error = cancel.CANCELLED
        if run.error is not None and cancel.requested():
            # Most likely the stop's own doing (its sandbox removed under it): a cancellation,
            # never reported as a "sandbox failed" error of the case.
            run.error = cancel.CANCELLED
        verdict = run.verdict(case_id, time.monotonic() - started)
        events.end(out_dir, verdict.decision.value, verdict.error)
        session = run.session
        if verdict.error == cancel.CANCELLED:
            write_cancelled(out_dir)
            log.info("cancelled", case=case_id, judge=self.name)
            return verdict, session
        write_products(out_dir, session.plan if session else None,
                       session.log if session else [], verdict)
        log.info("judged", case=case_id, judge=self.name, decision=verdict.decision.value,
                 error=verdict.error)
        return verdict, session


class _Run:
    """The mutable state of one judge() call."""

    def __init__(self, judge: AgentJudge, started: float) -> None:
        self.judge = judge
        self.started = started
        self.session: Session | None = None
        self.usage = Usage()
        self.turns = 0
        self.nudges = 0
        self.error: str | None = None
        self.seen_calls: dict[str, tuple[str, int]] = {}  # call signature -> (first id, count)

    def loop(self, client: ModelClient, system_text: str, overview: str) -> None:
        judge, budgets = self.judge, self.judge.budgets
        session = self.session
        assert session is not None
        tools = judge.tools
        system = system_blocks([system_text])
        messages: list[dict[str, Any]] = [{"role": "user", "content": overview}]
        while session.final is None:
            cancel.check()
            self._check_budgets()
            request = ModelRequest(model=judge.model, system=system, tools=tools,
                                   messages=with_conversation_breakpoint(messages),
                                   max_tokens=budgets.max_output_tokens, temperature=0.0)
            request.max_tokens = self._answer_room(request)
            self.turns += 1
            response = client.complete(request)
            self.usage = self.usage + response.usage
            messages.append({"role": "assistant", "content": response.content})
            calls = [b for b in response.content if b.get("type") == "tool_use"]
            if not calls:
                self.nudges += 1
                if self.nudges > budgets.max_nudges:
                    raise SessionError(
                        f"unparseable output: the model stopped calling tools {self.nudges} "
                        "times without submitting a verdict"
                    )
                messages.append({"role": "user", "content": NUDGE})
                continue
            results = []
            stalled: str | None = None
            # An answer cut at max_tokens leaves its last call's input unfinished (servers that
            # parse calls from text return what they had): say why the call was refused.
            cut_off = response.stop_reason == "max_tokens"
            for call in calls:
                repeat_of, count = self._repeat(call)
                result = session.handle(call)
                if cut_off and result.is_error:
                    result = result.with_note(CUT_NOTE.format(cap=request.max_tokens))
                if repeat_of is not None:
                    result = result.with_note(REPEAT_NUDGE.format(first=repeat_of))
                results.append(result.block())
                if session.final is not None:
                    return
                if count >= budgets.max_identical_calls:
                    stalled = f"stalled: {count} identical {call.get('name', '')} calls"
                    break
                cancel.check()
            messages.append({"role": "user", "content": results})
            if session.invalid_outputs > budgets.max_invalid:
                raise SessionError(
                    f"unparseable output: {session.invalid_outputs} tool calls with unknown "
                    f"names or malformed input (limit {budgets.max_invalid})"
                )
            if stalled is not None:
                raise SessionError(stalled)

    def _repeat(self, call: dict[str, Any]) -> tuple[str | None, int]:
        """How often this exact call (tool and input) has been made, this one included, and
        the id of the first of them when this is the first repeat (the one that is nudged)."""
        name = str(call.get("name", ""))
        signature = name + "\0" + json.dumps(call.get("input"), sort_keys=True, default=str)
        first, count = self.seen_calls.get(signature, (str(call.get("id", "")), 0))
        count += 1
        self.seen_calls[signature] = (first, count)
        return (first if count == 2 else None), count

    def _answer_room(self, request: ModelRequest) -> int:
        """max_tokens for this request: max_output_tokens, cut to what the context has left;
        SessionError when less than min_answer_tokens would be left."""
        budgets = self.judge.budgets
        body = json.dumps([request.system, request.tools, request.messages], ensure_ascii=False)
        prompt_tokens = -(-len(body) // CHARS_PER_TOKEN)
        room = budgets.max_context_tokens - prompt_tokens
        if room < budgets.min_answer_tokens:
            raise SessionError(
                f"context budget exhausted: the next request is about {prompt_tokens} tokens, "
                f"leaving {max(room, 0)} of max_context_tokens {budgets.max_context_tokens} for "
                f"an answer (needs {budgets.min_answer_tokens})")
        return min(budgets.max_output_tokens, room)

    def _check_budgets(self) -> None:
        budgets = self.judge.budgets
        if self.turns >= budgets.max_turns:
            raise SessionError(f"budget exhausted: {self.turns} turns (limit {budgets.max_turns})")
        tokens = self.usage.total_tokens
        if tokens >= budgets.max_total_tokens:
            raise SessionError(
                f"budget exhausted: {tokens} tokens (limit {budgets.max_total_tokens})"
            )
        elapsed = time.monotonic() - self.started
        if elapsed >= budgets.max_wall_s:
            raise SessionError(
                f"budget exhausted: {elapsed:.0f}s wall time (limit {budgets.max_wall_s:g}s)"
            )

    def verdict(self, case_id: str, duration_s: float) -> Verdict:
        session = self.session
        details: dict[str, Any] = {
            "turns": self.turns, "nudges": self.nudges,
            "repeated_calls": sum(count - 1 for _, count in self.seen_calls.values()),
        }
        if session is not None:
            details |= {
                "tool_calls": dict(sorted(session.tool_calls.items())),
                "violations": dict(sorted(session.violations.items())),
                "plan_items": len(session.plan.items) if session.plan else 0,
                "plan_revisions": session.plan_revisions,
                "inspections": len(session.log),
                "evidence": _evidence_counts(session),
                "sandbox": {"kind": session.sandbox.kind,
                            "isolated": session.sandbox.isolated},
            }
        common: dict[str, Any] = {
            "case_id": case_id, "judge": self.judge.name, "usage": self.usage,
            "duration_s": round(duration_s, 3), "details": details,
        }
        final = session.final if session is not None else None
        if self.error is not None or final is None:
            return Verdict(decision=Decision.ERROR,
                           error=self.error or "session ended without a verdict", **common)
        return Verdict(decision=final.decision, rationale=final.rationale,
                       citations=final.citations, unsupported=final.unsupported,
                       confidence=final.confidence, **common)


def _evidence_counts(session: Session) -> dict[str, int]:
    refs = [ref for inspection in session.log for ref in inspection.evidence]
    return {"quotes": len(refs), "verified": sum(1 for r in refs if r.verified)}
