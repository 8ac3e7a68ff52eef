"""The multi-judge: a majority vote over several direct judges (one per model).

Members are `DirectJudge`s, one per entry of `options.models` (a model may repeat), judged in
order into `members/<n>-<model>/` under the case folder. Voting rules:

- only decided votes (pass/fail) count; member errors and abstentions are listed but not votes;
- the majority of decided votes wins;
- a tie is decided **fail**: a false pass costs more than a false fail when verdicts select
  rollouts, so the panel does not accept a run that half of it rejects (`details["tie"]`);
- no decided vote at all gives abstain when the run allows it and every member abstained,
  otherwise `Decision.ERROR` naming the members' errors.

The verdict's score is the fraction of decided votes for pass.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Usage, Verdict
from judge_runner.judges.direct import DirectJudge, OneCallSettings, direct_call
from judge_runner.judges.llm import JudgeConfigError, client_factory
from judge_runner.judges.products import write_products
from judge_runner.judges.registry import takes
from judge_runner.judges.sizes import Call, CaseCalls

MEMBERS_DIR = "members"


@dataclass(frozen=True)
class MultiJudge:
    members: tuple[DirectJudge, ...]
    allow_abstain: bool = False
    name: str = "multi"

    def config(self) -> dict[str, Any]:
        return {"judge": self.name, "allow_abstain": self.allow_abstain,
                "members": [m.config() for m in self.members], "tie": "fail"}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        votes: list[dict[str, Any]] = []
        usage = Usage()
        for number, member in enumerate(self.members, start=1):
            member_dir = out_dir / MEMBERS_DIR / f"{number}-{_slug(member.model)}"
            verdict = member.judge(case, member_dir)
            usage = usage + verdict.usage
            votes.append({"model": member.model, "decision": verdict.decision.value,
                          "error": verdict.error,
                          "dir": member_dir.relative_to(out_dir).as_posix()})
        verdict = self._tally(case.root.name, votes, usage)
        verdict.duration_s = round(time.monotonic() - started, 3)
        write_products(out_dir, None, [], verdict)
        return verdict

    def _tally(self, case_id: str, votes: list[dict[str, Any]], usage: Usage) -> Verdict:
        passes = sum(1 for v in votes if v["decision"] == Decision.PASS)
        fails = sum(1 for v in votes if v["decision"] == Decision.FAIL)
        abstains = sum(1 for v in votes if v["decision"] == Decision.ABSTAIN)
        details: dict[str, Any] = {"votes": votes, "pass": passes, "fail": fails,
                                   "abstain": abstains, "tie": passes == fails > 0}
        common: dict[str, Any] = {"case_id": case_id, "judge": self.name, "usage": usage,
                                  "details": details}
        if passes + fails == 0:
            if self.allow_abstain and abstains == len(votes):
                return Verdict(decision=Decision.ABSTAIN, rationale="every member abstained",
                               **common)
            errors = "; ".join(f"{v['model']}: {v['error']}" for v in votes if v["error"])
            return Verdict(decision=Decision.ERROR,
                           error=f"no member decided ({errors or 'all abstained'})", **common)
        decision = Decision.PASS if passes > fails else Decision.FAIL
        rule = " (tie decided fail)" if passes == fails else ""
        return Verdict(decision=decision, score=passes / (passes + fails),
                       confidence=round(max(passes, fails) / (passes + fails), 6),
                       rationale=f"{passes} pass vs {fails} fail of {len(votes)} members{rule}",
                       **common)


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)[:60]


class MultiSettings(OneCallSettings):
    models: list[str] = Field(default_factory=list)
    panel_size: int = Field(default=3, gt=0)  # members when only --model is given

    def case_calls(self, case: CasePackage) -> CaseCalls:
        """One direct call per member."""
        members = self.models or [self.model or ""] * self.panel_size
        one = direct_call(self, "", case)
        return CaseCalls(tuple(Call(m, one.prompt_tokens, one.max_output_tokens)
                               for m in members))


@takes(MultiSettings, "multi")
def make_judge(settings: MultiSettings) -> MultiJudge:
    """Members from `settings.models` (or `settings.model` repeated `panel_size` times).

    Raises JudgeConfigError with fewer than two members.
    """
    models = list(settings.models)
    if not models and settings.model:
        models = [settings.model] * settings.panel_size
    if len(models) < 2:
        raise JudgeConfigError("the multi judge needs at least two members (--models a,b,c)")
    clients = client_factory(settings, settings.models)
    members = tuple(DirectJudge(model=model, clients=clients, allow_abstain=settings.allow_abstain,
                                max_prompt_tokens=settings.max_prompt_tokens,
                                max_output_tokens=settings.max_output_tokens)
                    for model in models)
    return MultiJudge(members=members, allow_abstain=settings.allow_abstain)
