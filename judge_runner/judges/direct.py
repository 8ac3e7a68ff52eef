"""The direct judge (LLM-as-a-judge): one call with the whole case as a digest.

The model sees the instruction, the task-time skills, the normalized trajectory and artifact
previews (see `digest.py` for the selection policy when they do not fit `max_prompt_tokens`,
recorded in `details["selection"]`) and must answer with a `submit_verdict` tool call. A failed
call or an answer that is not a valid tool call gives `Decision.ERROR` with the reason.
It writes verdict.json, an empty inspection log, a plan.md saying no plan was made, and the
recorded transcript.jsonl.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.judges import oneshot
from judge_runner.judges.annotators import Annotators, AnnotatorSettings, tally
from judge_runner.judges.digest import render_digest
from judge_runner.judges.llm import (
    ClientFactory,
    ModelJudgeSettings,
    client_factory,
    require_model,
)
from judge_runner.judges.products import write_products
from judge_runner.judges.registry import takes
from judge_runner.judges.sizes import Call, CaseCalls, prompt_tokens

DEFAULT_MAX_PROMPT_TOKENS = 150_000
DEFAULT_MAX_OUTPUT_TOKENS = 2048


@dataclass(frozen=True)
class OneCallJudge:
    """The settings every one-call judge (direct, rubric) shares, and its configuration.

    model: model name; clients: per-case recorded client; allow_abstain: offer abstain;
    max_prompt_tokens: digest budget (default 150,000 estimated tokens);
    max_output_tokens: answer budget per call (default 2,048).
    """

    model: str
    clients: ClientFactory
    allow_abstain: bool = False
    max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    name: str = "one-call"

    def config(self) -> dict[str, Any]:
        return {"judge": self.name, "model": self.model, "allow_abstain": self.allow_abstain,
                "max_prompt_tokens": self.max_prompt_tokens,
                "max_output_tokens": self.max_output_tokens, "temperature": 0.0}


@dataclass(frozen=True)
class DirectJudge(OneCallJudge):
    """One-call judge; settings as in OneCallJudge, plus its simulated annotators
    (`annotators.py`; default one, whose stated confidence is the verdict's)."""

    name: str = "direct"
    annotators: Annotators = field(default_factory=Annotators)

    def config(self) -> dict[str, Any]:
        return super().config() | self.annotators.config()

    @property
    def system_prompt(self) -> str:
        return direct_system(self.allow_abstain)

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        return self.judge_briefed(case, out_dir, "")

    def judge_briefed(self, case: CasePackage, out_dir: Path, briefing: str) -> Verdict:
        """`judge` with another judge's findings (see `briefing.py`) shown after the digest."""
        started = time.monotonic()
        verdict = self.decide(case, out_dir, briefing)
        verdict.duration_s = round(time.monotonic() - started, 3)
        write_products(out_dir, None, [], verdict)
        return verdict

    def decide(self, case: CasePackage, out_dir: Path, briefing: str = "") -> Verdict:
        """The verdict without writing products (multi-judge members reuse this)."""
        case_id = case.root.name
        details: dict[str, Any] = {"model": self.model}
        usage = Usage()
        answers: list[oneshot.VerdictInput | str] = []  # an answer, or why an annotator failed
        client = self.clients(out_dir)  # first: it replaces an earlier attempt's transcript
        try:
            digest, selection = render_digest(case, self.max_prompt_tokens)
            details["selection"] = selection.model_dump()
            oneshot.check_fits(selection)
        except oneshot.FAILURES as exc:
            return Verdict(case_id=case_id, judge=self.name, decision=Decision.ERROR,
                           error=oneshot.failure_reason(exc), details=details)
        tool = verdict_tool(self.allow_abstain)
        for index in range(self.annotators.k):
            user = (digest + self.annotators.section(index, case)
                    + (f"\n\n{briefing}" if briefing else ""))
            try:
                answer, response = oneshot.call_tool(
                    client, model=self.model, system=self.system_prompt, user=user, tool=tool,
                    parse=oneshot.VerdictInput, max_tokens=self.max_output_tokens)
                usage = usage + response.usage
                if answer.decision == "abstain" and not self.allow_abstain:
                    raise oneshot.OutputError("abstain answered although it is not enabled")
                answers.append(answer)
            except oneshot.FAILURES as exc:
                usage = usage + oneshot.spent(exc)
                answers.append(oneshot.failure_reason(exc))
        vote = tally(answers)
        details |= vote.details
        if vote.decision is Decision.ERROR:
            return Verdict(case_id=case_id, judge=self.name, decision=Decision.ERROR,
                           error=vote.rationale, usage=usage, details=details)
        return Verdict(case_id=case_id, judge=self.name, decision=vote.decision,
                       rationale=vote.rationale, confidence=vote.confidence, usage=usage,
                       details=details)


def direct_system(allow_abstain: bool) -> str:
    return oneshot.render("direct_system.md.j2", allow_abstain=allow_abstain)


def verdict_tool(allow_abstain: bool) -> dict[str, Any]:
    return oneshot.tool_spec(
        "submit_verdict", "Submit the decision on the run, how sure you are of it "
        "(confidence, 0.5 to 1) and its rationale.",
        oneshot.VerdictInput, oneshot.decisions(allow_abstain))


def direct_call(settings: OneCallSettings, model: str, case: CasePackage) -> Call:
    """One direct call of `model` on `case`, sized from its prompt: the system prompt, the digest
    within the prompt budget and the verdict tool (an annotator's examples are not counted)."""
    digest, _ = render_digest(case, settings.max_prompt_tokens)
    return Call(model, prompt_tokens(direct_system(settings.allow_abstain), digest,
                                     verdict_tool(settings.allow_abstain)),
                settings.max_output_tokens)


class OneCallSettings(ModelJudgeSettings):
    """Options of the one-call judges (direct, rubric, and multi's members)."""

    max_prompt_tokens: int = Field(default=DEFAULT_MAX_PROMPT_TOKENS, gt=0)
    max_output_tokens: int = Field(default=DEFAULT_MAX_OUTPUT_TOKENS, gt=0)

    def token_budgets(self) -> dict[str, int]:
        return {"max_prompt_tokens": self.max_prompt_tokens,
                "max_output_tokens": self.max_output_tokens}


def one_call_arguments(settings: OneCallSettings, judge: str) -> dict[str, Any]:
    """Constructor arguments shared by the one-call judges (direct, rubric); JudgeConfigError
    without a model."""
    return {
        "model": require_model(settings, judge),
        "clients": client_factory(settings),
        "allow_abstain": settings.allow_abstain,
        **settings.token_budgets(),
    }


class DirectSettings(OneCallSettings, AnnotatorSettings):
    """The direct judge's options: the one-call ones and its simulated annotators."""

    def case_calls(self, case: CasePackage) -> CaseCalls:
        """One call per annotator."""
        return CaseCalls((direct_call(self, self.model or "", case),) * self.annotators)


@takes(DirectSettings, "direct")
def make_judge(settings: DirectSettings) -> DirectJudge:
    """Raises JudgeConfigError without a model, or for examples that cannot be read."""
    return DirectJudge(**one_call_arguments(settings, "direct"),
                       annotators=settings.drawn(settings.annotators, "direct"))
