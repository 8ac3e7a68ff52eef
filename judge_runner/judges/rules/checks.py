"""The checks a rules JudgeSkill can switch on, by id.

Each check reads a `CaseView`, and returns a `Finding` — supports, refutes or inconclusive, with
the steps or artifact paths it rests on — or None when it does not apply to the case (then it is
left out of the plan). Checks are pure functions of the case and their `CheckSpec`, so verdicts
are deterministic. No check knows any task or benchmark: each one reads generic evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from judge_runner.cases import StepKind, TerminationStatus
from judge_runner.core import INSTRUCTION_FILE, EvidenceRef, Outcome, RefKind
from judge_runner.judges.rules.evidence import (
    CaseView,
    RequiredOutput,
    failed,
    first_line,
    is_read,
    step_command,
    step_path,
    step_text,
)
from judge_runner.judges.rules.parse import parse_problem
from judge_runner.judges.rules.spec import CheckSpec


@dataclass(frozen=True)
class Finding:
    outcome: Outcome
    text: str
    where: str
    evidence: tuple[EvidenceRef, ...] = field(default_factory=tuple)


CheckFn = Callable[[CaseView, CheckSpec], Finding | None]


@dataclass(frozen=True)
class CheckDef:
    id: str
    support: str
    refute: str
    run: CheckFn


CHECKS: dict[str, CheckDef] = {}


def check(check_id: str, *, support: str, refute: str) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        CHECKS[check_id] = CheckDef(check_id, support, refute, fn)
        return fn
    return register


def known_checks() -> frozenset[str]:
    return frozenset(CHECKS)


def step_ref(index: int, quote: str | None = None) -> EvidenceRef:
    return EvidenceRef(kind=RefKind.STEP, ref=str(index), quote=quote or None)


def _last_step_ref(view: CaseView) -> tuple[EvidenceRef, ...]:
    last = view.last_step
    if last is None:
        return (EvidenceRef(kind=RefKind.INSTRUCTION, ref=INSTRUCTION_FILE),)
    return (step_ref(last.index, first_line(step_text(last), 120)),)


def _patterns(spec: CheckSpec, key: str) -> list[re.Pattern[str]]:
    return [re.compile(p, re.IGNORECASE) for p in spec.words(key)]


def _first_match(patterns: list[re.Pattern[str]], text: str) -> str | None:
    """The text matched by the first pattern (in list order) that matches, else None."""
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return match.group(0)
    return None


@check("run_terminated",
       support="the run ended with a final result event that is not an error",
       refute="no final result (timeout, crash) or an error result (max turns, execution error)")
def run_terminated(view: CaseView, spec: CheckSpec) -> Finding:
    term = view.trajectory.termination
    where = "run termination record and the last step"
    refs = _last_step_ref(view)
    if term.status is TerminationStatus.NO_RESULT:
        return Finding(Outcome.REFUTES, "the run ended without a final result event "
                       "(cut off: timeout or crash)", where, refs)
    if term.status is TerminationStatus.ERROR or (term.result_subtype or "").startswith("error"):
        return Finding(Outcome.REFUTES,
                       f"the run ended with an error result ({term.result_subtype or 'error'})",
                       where, refs)
    max_turns = spec.number("max_turns", 0)
    if max_turns and term.num_turns is not None and term.num_turns >= max_turns:
        return Finding(Outcome.REFUTES, f"the run used {term.num_turns} turns, at or over the "
                       f"limit of {int(max_turns)}", where, refs)
    return Finding(Outcome.SUPPORTS, f"the run completed ({term.result_subtype or 'result'}, "
                   f"{term.num_turns if term.num_turns is not None else '?'} turns)", where, refs)


@check("no_deferral",
       support="the final report does not hand the task back",
       refute="the final report asks the user for input or says the task could not be done")
def no_deferral(view: CaseView, spec: CheckSpec) -> Finding | None:
    step, text = view.final_message_step, view.final_report
    if not text.strip():
        return None
    where = f"final report (step {step.index})" if step else "final report"
    refs: tuple[EvidenceRef, ...] = (step_ref(step.index),) if step else _last_step_ref(view)
    quote = _first_match(_patterns(spec, "phrases"), text)
    if quote is not None:
        refs = (step_ref(step.index, quote),) if step else refs
        return Finding(Outcome.REFUTES, f"the final report defers the task: {quote!r}",
                       where, refs)
    # absence of a deferral is not positive evidence of success
    return Finding(Outcome.INCONCLUSIVE, "the final report does not defer the task", where, refs)


@check("required_outputs_present",
       support="every output file the instruction asks for was written (artifact or trace)",
       refute="an output file the instruction asks for was never written")
def required_outputs_present(view: CaseView, spec: CheckSpec) -> Finding | None:
    outputs = view.outputs
    if not outputs:
        return None
    where = "instruction output paths vs artifacts and write steps: " + ", ".join(
        o.path for o in outputs)
    missing = []
    refs: list[EvidenceRef] = []
    for output in outputs:
        evidence = view.write_evidence(output)
        if evidence is None:
            missing.append(output)
        else:
            refs.append(EvidenceRef(kind=evidence.kind, ref=evidence.ref, quote=None))
    names = ", ".join(o.path for o in missing)
    missing_refs = [EvidenceRef(kind=RefKind.INSTRUCTION, ref=INSTRUCTION_FILE, quote=o.quote)
                    for o in missing] + list(_last_step_ref(view))
    return _refuted_or_supported(
        where, (f"no evidence that {names} was written", missing_refs) if missing else None,
        (f"all {len(outputs)} required outputs were written", refs))


@check("outputs_well_formed",
       support="stored required outputs are non-empty and parse as their file type",
       refute="a stored required output is empty or does not parse")
def outputs_well_formed(view: CaseView, spec: CheckSpec) -> Finding | None:
    records = [(o, view.stored_artifact(o)) for o in view.outputs]
    stored = [(o, r) for o, r in records if r is not None and r.stored_as is not None]
    if not stored:
        return None
    where = "artifacts: " + ", ".join(r.stored_as or "" for _, r in stored)
    problems: list[tuple[EvidenceRef, str]] = []
    fine: list[EvidenceRef] = []
    min_bytes = int(spec.number("min_bytes", 1))
    for _output, record in stored:
        assert record.stored_as is not None
        path = view.case.artifact_file(record)
        problem = parse_problem(path, min_bytes) if path is not None else \
            "the stored copy is not a file inside artifacts/"
        ref = EvidenceRef(kind=RefKind.ARTIFACT, ref=record.stored_as)
        if problem:
            problems.append((ref, problem))
        else:
            fine.append(ref)
    text = "; ".join(f"{ref.ref}: {problem}" for ref, problem in problems)
    return _refuted_or_supported(
        where, (f"malformed output: {text}", [r for r, _ in problems]) if problems else None,
        (f"{len(fine)} stored output(s) are non-empty and parse", fine))


type Said = tuple[str, Sequence[EvidenceRef]]  # a finding's text and its evidence


def _refuted_or_supported(where: str, refuted: Said | None, supported: Said) -> Finding:
    """REFUTES with `refuted` when something is wrong, else SUPPORTS with `supported`."""
    if refuted is not None:
        return Finding(Outcome.REFUTES, refuted[0], where, tuple(refuted[1]))
    return Finding(Outcome.SUPPORTS, supported[0], where, tuple(supported[1]))


@check("errors_resolved",
       support="the last command the agent ran succeeded",
       refute="the run's last command failed and nothing after it succeeded")
def errors_resolved(view: CaseView, spec: CheckSpec) -> Finding | None:
    executions = view.executions
    if not executions:
        return None
    last = executions[-1]
    where = f"last command, step {last.index}"
    if last.output is None:
        return Finding(Outcome.INCONCLUSIVE, "the last command has no recorded result", where,
                       (step_ref(last.index),))
    if failed(last):
        quote = first_line(_error_line(last.output or ""), 160)
        return Finding(Outcome.REFUTES, "the last command failed: " + quote, where,
                       (step_ref(last.index, quote),))
    return Finding(Outcome.SUPPORTS, "the last command succeeded", where, (step_ref(last.index),))


def _error_line(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.strip()]
    for line in reversed(lines):
        if "error" in line.lower() or "exception" in line.lower():
            return line
    return lines[-1] if lines else ""


@check("output_checked",
       support="after the last write of an output, the agent looked at it",
       refute="an output was written and never looked at again")
def output_checked(view: CaseView, spec: CheckSpec) -> Finding | None:
    written: list[tuple[RequiredOutput, int]] = []
    for output in view.outputs:
        index = view.last_write_index(output)
        if index is not None:
            written.append((output, index))
    if not written:
        return None
    where = "steps after each output's last write"
    unchecked: list[EvidenceRef] = []
    checked: list[EvidenceRef] = []
    for output, index in written:
        inspection = _inspected_after(view, output.name, index)
        if inspection is None:
            unchecked.append(step_ref(index))
        else:
            checked.append(step_ref(inspection))
    if unchecked:
        return Finding(Outcome.REFUTES, f"{len(unchecked)} output(s) never inspected after "
                       "being written", where, tuple(unchecked))
    return Finding(Outcome.SUPPORTS, f"{len(checked)} output(s) inspected after the last write",
                   where, tuple(checked))


def _inspected_after(view: CaseView, name: str, index: int) -> int | None:
    for step in view.steps:
        if step.index <= index or step.kind is not StepKind.TOOL_CALL or failed(step):
            continue
        path = step_path(step) or ""
        if is_read(step) and PurePosixPath(path).name == name:
            return step.index
        command = step_command(step)
        if command and name in command and step.output:
            return step.index
    # a write by a command also shows the content when the command prints it back
    writer = next((s for s in view.steps if s.index == index), None)
    if writer is not None and step_command(writer) and writer.output and name in writer.output:
        return index
    return None


@check("claims_backed",
       support="every file the final report says was saved has a matching write in the trace",
       refute="the final report claims a saved file or passing checks the trace does not show")
def claims_backed(view: CaseView, spec: CheckSpec) -> Finding | None:
    step = view.final_message_step
    text = view.final_message
    if not text.strip() or step is None:
        return None
    where = f"final report (step {step.index}) vs trace"
    claims = _claimed_paths(text, spec)
    test_claim = _first_match(_patterns(spec, "success_claims"), text)
    if not claims and test_claim is None:
        return None
    unbacked = [c for c in claims
                if view.write_evidence(RequiredOutput(path=c, quote="")) is None]
    if unbacked:
        return Finding(Outcome.REFUTES, f"claims {', '.join(unbacked)} was saved; no write "
                       "in the trace", where, (step_ref(step.index, unbacked[0]),))
    if test_claim is not None and not _trace_shows_success(view, spec):
        return Finding(Outcome.REFUTES, f"claims {test_claim!r}; no command output shows it",
                       where, (step_ref(step.index, test_claim),))
    return Finding(Outcome.SUPPORTS, "the report's claims have matching trace entries", where,
                   (step_ref(step.index),))


_CLAIM_PATH = re.compile(
    r"(?:saved|written|wrote|created|generated|exported|stored)\b[^.\n]{0,40}?"
    r"[`'\"]?((?:/[\w.\-]+)+\.[A-Za-z0-9]{1,7}|[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,6})[`'\"]?",
    re.IGNORECASE,
)


def _claimed_paths(text: str, spec: CheckSpec) -> list[str]:
    ignore = {e.lower() for e in spec.words("ignore_extensions")}
    out: list[str] = []
    for match in _CLAIM_PATH.finditer(text):
        path = match.group(1)
        if PurePosixPath(path).suffix.lower() in ignore or path in out:
            continue
        out.append(path)
    return out


def _trace_shows_success(view: CaseView, spec: CheckSpec) -> bool:
    patterns = _patterns(spec, "success_evidence")
    return any(not failed(s) and s.output and any(p.search(s.output) for p in patterns)
               for s in view.executions)


@check("skills_consulted",
       support="the agent loaded or read at least one of the task-time skills it was given",
       refute="skills were provided and the agent never opened any of them")
def skills_consulted(view: CaseView, spec: CheckSpec) -> Finding | None:
    if not view.skills:
        return None
    where = "skill-use steps and reads under skills/: " + ", ".join(view.skills)
    uses = view.skill_uses
    if uses:
        first = uses[0]
        return Finding(Outcome.SUPPORTS, f"{len(uses)} skill use(s), first at step {first.index}"
                       f" ({first.skill or step_path(first) or 'skill'})", where,
                       tuple(step_ref(s.index, s.skill) for s in uses[:5]))
    return Finding(Outcome.REFUTES, f"{len(view.skills)} skill(s) available, none opened", where,
                   (EvidenceRef(kind=RefKind.SKILL, ref=view.skills[0]),))


_SCRIPT = re.compile(r"\b([\w\-]+\.(?:py|sh|js|ts|R))\b")


@check("skill_procedure_followed",
       support="after loading a skill that ships scripts, the agent ran or read one of them",
       refute="a loaded skill names scripts and the agent used none of them afterwards")
def skill_procedure_followed(view: CaseView, spec: CheckSpec) -> Finding | None:
    max_scripts = int(spec.number("max_named_scripts", 12))
    loaded = [s for s in view.skill_uses if s.kind is StepKind.SKILL_USE and s.text]
    relevant = []
    for use in loaded:
        names = sorted(set(_SCRIPT.findall(use.text or "")))
        if names and len(names) <= max_scripts:
            relevant.append((use, names))
    if not relevant:
        return None
    where = "tool calls after each skill load that names scripts"
    later_text = {s.index: step_text(s) for s in view.tool_steps}
    skipped = []
    for use, names in relevant:
        if not any(i > use.index and any(n in t for n in names) for i, t in later_text.items()):
            skipped.append((use, names))
    if skipped:
        use, names = skipped[0]
        return Finding(Outcome.REFUTES, f"skill {use.skill or '?'} names {', '.join(names[:4])};"
                       " none used afterwards", where,
                       tuple(step_ref(u.index, u.skill) for u, _ in skipped))
    return Finding(Outcome.SUPPORTS, "scripts of the loaded skills were used", where,
                   tuple(step_ref(u.index, u.skill) for u, _ in relevant))


@check("error_ratio",
       support="few tool calls failed",
       refute="a large share of tool calls failed")
def error_ratio(view: CaseView, spec: CheckSpec) -> Finding | None:
    min_calls = int(spec.number("min_tool_calls", 4))
    steps = view.tool_steps
    if len(steps) < min_calls:
        return None
    bad = [s for s in steps if failed(s)]
    ratio = len(bad) / len(steps)
    limit = spec.number("max_ratio", 0.35)
    where = f"all {len(steps)} tool calls"
    refs = tuple(step_ref(s.index) for s in (bad or steps)[:5])
    over = ratio > limit
    text = f"{len(bad)}/{len(steps)} tool calls failed ({ratio:.0%} {'>' if over else '≤'} " \
           f"{limit:.0%})"
    return Finding(Outcome.REFUTES if over else Outcome.SUPPORTS, text, where, refs)


@check("no_substitute_data",
       support="no sign that the agent worked on invented data",
       refute="the agent says it used synthetic, simulated or placeholder data")
def no_substitute_data(view: CaseView, spec: CheckSpec) -> Finding | None:
    patterns = _patterns(spec, "phrases")
    messages = [s for s in view.steps if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
    if not messages:
        return None
    where = f"{len(messages)} assistant messages"
    for step in messages:
        quote = _first_match(patterns, step.text or "")
        if quote is not None:
            return Finding(Outcome.REFUTES, f"step {step.index} says {quote!r}",
                           where, (step_ref(step.index, quote),))
    return Finding(Outcome.INCONCLUSIVE, "no message mentions invented data", where,
                   (step_ref(messages[-1].index),))


# The outcome checks and the judge-address check live in their own modules and register
# themselves on import.
from judge_runner.judges.rules import address_checks, outcome_checks  # noqa: E402, F401
