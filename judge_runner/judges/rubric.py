"""The rubric judge: write a task rubric from the instruction and skills, then grade the run.

Call 1 (`submit_rubric`) sees only the instruction and the skills, never the run, so the rubric
is about the task. Call 2 (`submit_grades`) sees the rubric and the case digest (same selection
policy as the direct judge) and grades each criterion, then decides. The rubric is written to
plan.md (one plan item per criterion) and the grades to inspection_log.jsonl (one inspection per
criterion), so the products read like the agent judge's. Any failed call or invalid answer gives
`Decision.ERROR` with the reason.

Simulated annotators (`annotators.py`, `-o annotators=k -o examples=DATASET`): the rubric is
written once and shared, since it is written from the task alone and examples of other runs
would not change what the task asks; the k annotators are k grading calls, call j with example
set j after the digest. A grading call that fails or answers unusably (an ungraded criterion,
an abstention not enabled) is no vote; the decision and confidence are the vote's; the
inspection log and the score are the grades of the first annotator voting for the decision
(`details["shown"]`, 1-based). With k = 1 there is no vote and the stated confidence stays.
A failed rubric call is an error whatever k is (nothing could be graded).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge_runner.cases import CasePackage
from judge_runner.core import Decision, Inspection, Outcome, Plan, PlanItem, Usage, Verdict
from judge_runner.judges import oneshot
from judge_runner.judges.annotators import Annotators, AnnotatorSettings, tally
from judge_runner.judges.digest import render_digest
from judge_runner.judges.direct import OneCallJudge, OneCallSettings, one_call_arguments
from judge_runner.judges.products import write_products
from judge_runner.judges.registry import takes
from judge_runner.judges.sizes import Call, CaseCalls, prompt_tokens
from judge_runner.models import ModelClient

_OUTCOMES = {"met": Outcome.SUPPORTS, "not_met": Outcome.REFUTES, "unclear": Outcome.INCONCLUSIVE}


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=20)
    criterion: str = Field(min_length=1)
    how_to_check: str = Field(min_length=1)
    critical: bool


class RubricInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criteria: list[Criterion] = Field(min_length=1, max_length=30)


def rubric_tool() -> dict[str, Any]:
    return oneshot.tool_spec("submit_rubric", "Submit the rubric.", RubricInput)


class Grade(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    grade: Literal["met", "not_met", "unclear"]
    evidence: str = Field(min_length=1)


class GradesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grades: list[Grade] = Field(min_length=1)
    decision: Literal["pass", "fail", "abstain"]
    rationale: str = Field(min_length=1)
    # How likely the decision is right, as the model states it (0.5: a guess, 1: certain).
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


@dataclass(frozen=True)
class RubricJudge(OneCallJudge):
    """Rubric-then-grade judge; settings as in OneCallJudge, plus the simulated annotators
    of its grading call (default one, whose stated confidence is the verdict's)."""

    name: str = "rubric"
    annotators: Annotators = field(default_factory=Annotators)

    def config(self) -> dict[str, Any]:
        return super().config() | self.annotators.config()

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        state = _State(case_id=case.root.name)
        try:
            self._run(case, out_dir, state)
        except oneshot.FAILURES as exc:
            state.error = oneshot.failure_reason(exc)
            state.usage = state.usage + oneshot.spent(exc)
        verdict = state.verdict(self.name, self.model, round(time.monotonic() - started, 3))
        write_products(out_dir, state.plan, state.log, verdict)
        return verdict

    def _run(self, case: CasePackage, out_dir: Path, state: _State) -> None:
        client = self.clients(out_dir)  # first: it replaces an earlier attempt's transcript
        task = task_prompt(case)
        rubric, response = oneshot.call_tool(
            client, model=self.model, system=oneshot.render("rubric_system.md.j2"), user=task,
            tool=rubric_tool(), parse=RubricInput, max_tokens=self.max_output_tokens)
        state.usage = state.usage + response.usage
        ids = [c.id for c in rubric.criteria]
        if len(set(ids)) != len(ids):
            raise oneshot.OutputError(f"rubric criterion ids repeat: {ids}")
        state.plan = Plan(items=[
            PlanItem(id=c.id, what=c.criterion, where=c.how_to_check, support="criterion met",
                     refute="criterion not met", critical=c.critical) for c in rubric.criteria])
        digest, selection = render_digest(case, self.max_prompt_tokens)
        state.details["selection"] = selection.model_dump()
        oneshot.check_fits(selection)
        prompt = grade_prompt(case, rubric.criteria, digest)
        answers: list[GradesInput | str] = []  # grades, or why that annotator failed
        for index in range(self.annotators.k):
            user = prompt + self.annotators.section(index, case, "submit_grades")
            try:
                answers.append(self._grade(client, user, ids, state))
            except oneshot.FAILURES as exc:
                state.usage = state.usage + oneshot.spent(exc)
                answers.append(oneshot.failure_reason(exc))
        vote = tally(answers)
        state.details |= vote.details
        if vote.decision is Decision.ERROR:
            state.error = vote.rationale
            return
        state.decision, state.rationale = vote.decision, vote.rationale
        state.confidence = vote.confidence
        # The grades shown: the first vote for the decision (the first answer when none was).
        shown = vote.chosen if vote.chosen is not None else next(
            n for n, a in enumerate(answers) if not isinstance(a, str))
        if self.annotators.k > 1:
            state.details["shown"] = shown + 1
        grades = answers[shown]
        assert not isinstance(grades, str)
        state.log = _inspections(rubric.criteria, grades)
        state.score = sum(1 for i in state.log if i.outcome is Outcome.SUPPORTS) / len(ids)

    def _grade(self, client: ModelClient, user: str, ids: list[str],
               state: _State) -> GradesInput:
        """One grading call (its usage added to `state`); OutputError for an abstention not
        enabled or a criterion left ungraded."""
        grades, response = oneshot.call_tool(
            client, model=self.model, system=grade_system(self.allow_abstain), user=user,
            tool=grades_tool(self.allow_abstain), parse=GradesInput,
            max_tokens=self.max_output_tokens)
        state.usage = state.usage + response.usage
        if grades.decision == "abstain" and not self.allow_abstain:
            raise oneshot.OutputError("abstain answered although it is not enabled")
        graded = {g.id for g in grades.grades}
        missing = [i for i in ids if i not in graded]
        if missing:
            raise oneshot.OutputError(f"criteria left ungraded: {missing}")
        return grades


def _inspections(criteria: list[Criterion], grades: GradesInput) -> list[Inspection]:
    """One inspection per criterion, in the rubric's order (every one is graded)."""
    graded = {g.id: g for g in grades.grades}
    return [Inspection(id=f"I{n}", plan_item=c.id, check=c.how_to_check,
                       finding=graded[c.id].evidence, outcome=_OUTCOMES[graded[c.id].grade],
                       critical=c.critical)
            for n, c in enumerate(criteria, start=1)]


@dataclass
class _State:
    case_id: str
    plan: Plan | None = None
    log: list[Inspection] = field(default_factory=list)
    decision: Decision | None = None
    rationale: str = ""
    score: float | None = None
    confidence: float | None = None
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def verdict(self, judge: str, model: str, duration_s: float) -> Verdict:
        self.details["model"] = model
        if self.error is not None or self.decision is None:
            return Verdict(case_id=self.case_id, judge=judge, decision=Decision.ERROR,
                           error=self.error or "no decision", usage=self.usage,
                           duration_s=duration_s, details=self.details)
        return Verdict(case_id=self.case_id, judge=judge, decision=self.decision,
                       rationale=self.rationale, citations=[i.id for i in self.log],
                       score=self.score, confidence=self.confidence, usage=self.usage,
                       duration_s=duration_s,
                       details=self.details)


def task_prompt(case: CasePackage) -> str:
    """The first call's user message: the instruction and the skills, fenced as the run's text
    (a trial's task files are the agent's to change)."""
    fence = case.fence
    return oneshot.render(
        "rubric_task.md.j2", declaration=fence.declaration(),
        instruction=fence.wrap(case.instruction.strip(), "the task instruction"),
        skills=[(fence.inline(name), fence.wrap(text, "the skill's SKILL.md"))
                for name, text in _skill_texts(case)])


def grade_prompt(case: CasePackage, criteria: list[Criterion], digest: str) -> str:
    """The second call's user message: the run's digest, then the rubric. The rubric is fenced
    as the run's text is: a model wrote it from the task instruction, which the agent could
    change, so a criterion may carry the agent's words."""
    lines = "\n".join(f"- {c.id}{' (critical)' if c.critical else ''}: {c.criterion} "
                      f"(check: {c.how_to_check})" for c in criteria)
    rubric = case.fence.wrap(lines, "the rubric, written by a model from the task instruction")
    return oneshot.render("rubric_grade.md.j2", digest=digest, rubric=rubric)


def grade_system(allow_abstain: bool) -> str:
    return oneshot.render("rubric_grade_system.md.j2", allow_abstain=allow_abstain)


def grades_tool(allow_abstain: bool) -> dict[str, Any]:
    return oneshot.tool_spec("submit_grades", "Submit the grade of every criterion and the "
                             "decision.", GradesInput, oneshot.decisions(allow_abstain))


def _skill_texts(case: CasePackage) -> list[tuple[str, str]]:
    texts = []
    for name in case.meta.skills:
        path = case.skills_dir / name / "SKILL.md"
        texts.append((name, path.read_text(encoding="utf-8", errors="replace")
                      if path.is_file() else "(SKILL.md not available)"))
    return texts


class RubricSettings(OneCallSettings, AnnotatorSettings):
    """The rubric judge's options: the one-call ones and the annotators of its grading call."""

    def case_calls(self, case: CasePackage) -> CaseCalls:
        """The rubric call, then one grading call per annotator, whose prompt holds the digest
        and the rubric the first call wrote (at most its answer budget; an annotator's examples
        are not counted)."""
        model, out = self.model or "", self.max_output_tokens
        first = prompt_tokens(oneshot.render("rubric_system.md.j2"), task_prompt(case),
                              rubric_tool())
        digest, _ = render_digest(case, self.max_prompt_tokens)
        second = prompt_tokens(grade_system(self.allow_abstain), grade_prompt(case, [], digest),
                               grades_tool(self.allow_abstain)) + out
        return CaseCalls((Call(model, first, out), *(Call(model, second, out),) * self.annotators))


@takes(RubricSettings, "rubric")
def make_judge(settings: RubricSettings) -> RubricJudge:
    """Raises JudgeConfigError without a model, or for examples that cannot be read."""
    return RubricJudge(**one_call_arguments(settings, "rubric"),
                       annotators=settings.drawn(settings.annotators, "rubric"))
