"""Simulated annotators: the same judge asked k times, each time with a different short set of
labelled dev examples after the case, and its confidence the share of votes.

An example is a *condensed* dev case, because whole trajectories are far too long to repeat k
times: the first `chars` characters of the instruction, how the run ended (status, steps, error
steps), the last `chars` characters of the agent's final message, and the verifier's outcome.
At the default 400 characters a set of two examples adds about 600 prompt tokens to each of the
k calls; they follow the case, so the k prompts share the case as a prefix (a server with a
prompt cache processes it once).

Sets are drawn deterministically: set j takes, for each label in turn, the example at a
position fixed by `sha256(seed, j, label)` among the pool's examples of that label, so each set
holds `per_set` examples alternating pass and fail (balanced, so the set itself does not tilt the
vote). The judged case never sees its own label: examples from the judged case or from any case
of the same task are left out of its sets.

Judges that use them (one place for the options, the draw, the configuration and the vote):

- direct: `-o annotators=k`, k calls of the whole judgment;
- rubric: `-o annotators=k`, the rubric is written once (it never sees the run, so examples of
  other runs have nothing to add there) and the k annotators are k grading calls over it;
- agent: `-o sessions=k`, k whole sessions, session j with example set j after its case
  message. At temperature 0, k sessions without examples would be the same session k times,
  so `sessions` above 1 requires `examples`.

The vote (`tally`): the majority of decided votes; a tie is fail, as in the multi judge; the
confidence is the share of all k voting for it, so one that failed (no vote, its reason is
listed) or abstained lowers it; no decided vote is an abstention, and none answering at all an
error (the judge's). With k = 1 there is no vote: the judge keeps its stated confidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import Field, model_validator

from judge_runner.cases import CasePackage, Dataset, StepKind
from judge_runner.core import Decision, Label
from judge_runner.judges.registry import JudgeConfigError, JudgeSettings
from judge_runner.text import cut, sha256_text
from judge_runner.untrusted import Fence

DEFAULT_CHARS = 400
DEFAULT_PER_SET = 2


@dataclass(frozen=True)
class Example:
    case_id: str
    task: str | None
    label: Label
    text: str  # the condensed case, without its label


def load_examples(root: Path, chars: int = DEFAULT_CHARS,
                  only: Path | None = None) -> tuple[Example, ...]:
    """Condensed labelled cases of the dataset at `root` (only the ids listed in the file
    `only`, when given), in case-id order; unlabelled or unreadable cases are skipped. Raises
    ValueError when no labelled case remains, OSError for an unreadable id file."""
    dataset = Dataset(root)
    labels = dataset.labels()
    wanted = set(only.read_text(encoding="utf-8").split()) if only is not None else None
    examples: list[Example] = []
    for case_id in dataset.case_ids():
        if case_id not in labels or (wanted is not None and case_id not in wanted):
            continue
        case = dataset.case(case_id)
        try:
            meta, trajectory, instruction = case.meta, case.trajectory, case.instruction
        except (OSError, ValueError):
            continue
        errors = sum(1 for s in trajectory.steps if s.is_error)
        tools = sum(1 for s in trajectory.steps if s.kind is StepKind.TOOL_CALL)
        head, _ = cut(instruction.strip(), chars, head=chars)
        final, _ = cut((trajectory.final_message or "(none)").strip(), chars, head=0)
        text = (f"Task: {head}\nRun: {trajectory.termination.status.value}, "
                f"{len(trajectory.steps)} steps, {tools} tool calls, {errors} error steps\n"
                f"Final message: {final}")
        examples.append(Example(case_id, meta.task, labels[case_id].label, text))
    if not examples:
        raise ValueError(f"{root}: no labelled case to draw in-context examples from")
    return tuple(examples)


def example_set(pool: Sequence[Example], index: int, *, case_id: str, task: str | None,
                per_set: int = DEFAULT_PER_SET, seed: int = 0) -> list[Example]:
    """Set `index` for the judged case (see the module docstring); fewer examples when the
    pool, without the judged case's task, has fewer."""
    usable = [e for e in pool if e.case_id != case_id and (task is None or e.task != task)]
    by_label = {label: [e for e in usable if e.label is label] for label in Label}
    chosen: list[Example] = []
    for slot in range(per_set):
        label = (Label.PASS, Label.FAIL)[(slot + index) % 2]
        candidates = [e for e in by_label[label] if e not in chosen]
        if not candidates:
            candidates = [e for e in usable if e not in chosen]
        if not candidates:
            break
        position = int(sha256_text(f"{seed}:{index}:{slot}:{label.value}")[:12], 16)
        chosen.append(candidates[position % len(candidates)])
    return chosen


def render_examples(examples: Sequence[Example], fence: Fence,
                    tool: str = "submit_verdict") -> str:
    """The examples as a prompt section placed after the case: the k calls then share the
    case's prompt as a prefix, which a server's prompt cache reuses. `tool`: what the judge
    calls to answer (named in the closing line). Each example's text (another run's instruction
    and final message, which that run's agent wrote) sits in the judged case's `fence`; the
    label line above it is ours."""
    if not examples:
        return ""
    parts = ["", "", "# Labelled examples of OTHER runs (condensed; not the run to judge)", "",
             "How the official check judged a few other runs, to calibrate your judgement. "
             "Decide the run above on its own evidence.", ""]
    for number, example in enumerate(examples, start=1):
        parts += [f"## Example {number}: the official check said {example.label.value.upper()}",
                  "", fence.wrap(example.text, f"condensed record of other run {number}"), ""]
    parts += [f"Now judge the run above (the case, not these examples): call {tool}."]
    return "\n".join(parts)


@dataclass(frozen=True)
class Annotators:
    """k simulated annotators over a pool of examples: what a judge holds to draw them.

    k: how many vote (1: no vote, the stated confidence); pool: the condensed labelled cases
    the sets are drawn from (empty: every annotator sees the case alone); per_set: examples per
    set; seed: of the draw.
    """

    k: int = 1
    pool: tuple[Example, ...] = ()
    per_set: int = DEFAULT_PER_SET
    seed: int = 0

    def config(self, count: str = "annotators") -> dict[str, Any]:
        """The configuration entries (none for one annotator without examples), `count` naming
        k: a calibration made at another k or with other examples is refused."""
        if self.k == 1 and not self.pool:
            return {}
        pool = sha256_text("\n".join(f"{e.case_id}\t{e.label.value}\t{e.text}"
                                      for e in self.pool))
        return {count: self.k, "examples_sha256": pool, "per_set": self.per_set,
                "seed": self.seed}

    def section(self, index: int, case: CasePackage, tool: str = "submit_verdict") -> str:
        """Annotator `index`'s examples for `case` as the prompt section after the case ("" with
        no pool). The case's id and task keep its own and its task's examples out."""
        shown = example_set(self.pool, index, case_id=case.root.name, task=task_of(case),
                            per_set=self.per_set, seed=self.seed)
        return render_examples(shown, case.fence, tool)


def task_of(case: CasePackage) -> str | None:
    """The case's task, None when its case.json cannot be read (then no example shares it; the
    judge reports the unreadable package itself)."""
    try:
        return case.meta.task
    except (OSError, ValueError):
        return None


class ExampleSettings(JudgeSettings):
    """The in-context example knobs (`-o KEY=VALUE`): examples: a dataset of labelled dev cases;
    example_split: a file of the case ids of `examples` to draw from; per_set: examples per set
    (default 2); example_chars: characters of each condensed part (default 400); seed: of the
    draw (default 0)."""

    examples: Path | None = None
    example_split: Path | None = None
    per_set: int = Field(default=DEFAULT_PER_SET, ge=1, le=8)
    example_chars: int = Field(default=DEFAULT_CHARS, ge=50, le=4000)
    seed: int = 0

    def drawn(self, k: int, judge: str) -> Annotators:
        """The annotators these settings describe, with `k` voting. Raises JudgeConfigError
        naming the judge for examples that cannot be read."""
        pool: tuple[Example, ...] = ()
        if self.examples is not None:
            try:
                pool = load_examples(self.examples, self.example_chars, self.example_split)
            except (OSError, ValueError) as exc:
                raise JudgeConfigError(f"{judge} judge: examples: {exc}") from None
        return Annotators(k=k, pool=pool, per_set=self.per_set, seed=self.seed)


class AnnotatorSettings(ExampleSettings):
    """The one-call judges' annotators: `annotators` (k, default 1) and the example knobs. More
    than one annotator needs `examples`: at temperature 0, k calls with the same prompt would
    all give the same answer, and their vote would say nothing."""

    annotators: int = Field(default=1, ge=1, le=15)

    @model_validator(mode="after")
    def _annotators_need_examples(self) -> AnnotatorSettings:
        if self.annotators > 1 and self.examples is None:
            raise ValueError(f"-o annotators={self.annotators} needs -o examples=DATASET "
                             f"(labelled dev cases): at temperature 0 the {self.annotators} "
                             "calls would otherwise all answer the same")
        return self


class Ballot(Protocol):
    """One annotator's answer: a tool input (direct, rubric) or a session's verdict (agent)."""

    @property
    def decision(self) -> str: ...

    @property
    def rationale(self) -> str: ...

    @property
    def confidence(self) -> float | None: ...


@dataclass(frozen=True)
class Tally:
    """The vote of k annotators. decision: pass | fail | abstain (no decided vote) | error
    (none answered, `rationale` then lists why); chosen: the first annotator (0-based) voting
    for the decision, whose answer the judge reports; details: what verdicts record."""

    decision: Decision
    rationale: str
    confidence: float | None
    chosen: int | None
    details: dict[str, Any] = field(default_factory=dict)


def tally(answers: Sequence[Ballot | str], noun: str = "annotators") -> Tally:
    """The vote over `answers` (an answer, or why that annotator failed) as the module
    docstring says; `noun` names the voters in the rationale ("2 of 3 annotators: ..."). One
    answer is no vote: its own decision, rationale and stated confidence (or its failure as the
    error), and no details."""
    if len(answers) == 1:
        only = answers[0]
        if isinstance(only, str):
            return Tally(Decision.ERROR, only, None, None)
        return Tally(Decision(only.decision), only.rationale, only.confidence, 0)
    given = [a for a in answers if not isinstance(a, str)]
    passes = sum(1 for a in given if a.decision == "pass")
    fails = sum(1 for a in given if a.decision == "fail")
    details: dict[str, Any] = {
        "votes": [a if isinstance(a, str) else str(a.decision) for a in answers],
        "stated": [None if isinstance(a, str) else a.confidence for a in answers],
        "pass": passes, "fail": fails,
        "failed": sum(1 for a in answers if isinstance(a, str))}
    if not given:
        failed = "; ".join(f"{noun[:-1]} {n}: {a}" for n, a in enumerate(answers, start=1))
        return Tally(Decision.ERROR, failed, None, None, details)
    if passes + fails == 0:
        return Tally(Decision.ABSTAIN, f"no {noun[:-1]} decided", None, None, details)
    decision = Decision.PASS if passes > fails else Decision.FAIL
    chosen = next(n for n, a in enumerate(answers)
                  if not isinstance(a, str) and a.decision == decision.value)
    reason = answers[chosen]
    assert not isinstance(reason, str)
    votes = max(passes, fails)
    return Tally(decision, f"{votes} of {len(answers)} {noun}: {reason.rationale}",
                 round(votes / len(answers), 6), chosen, details)
