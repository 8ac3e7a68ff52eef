"""Checks of what a finished run shows about its own outcome, beyond bookkeeping.

Principles (none is about a task; each holds for any run that is asked to produce something):

- `last_test_passed`: when the agent ran tests or a verification script, the last such run is
  what it left the work in: a failure there, even after earlier passes, means the work was left
  failing; a pass after earlier failures means it was fixed.
- `report_discloses_gaps`: a final report that admits partial work, assumptions, approximations,
  fallbacks or skipped parts describes a run that did not do what was asked, however confident
  the rest of it sounds.
- `obstacle_workaround`: an agent that hit an obstacle on the path the task intends (data that is
  not there, a source that refuses access) and announced a substitute (another source, an
  estimate, an assumption) has changed the task it solves.
- `outputs_computed`: a data output whose last write is text the agent typed into a file-write
  tool holds the model's own numbers; one written by a program it ran holds computed ones.
- `values_sane`: the content the agent last saw of its outputs, and its report, hold no
  degenerate values (NaN, infinities, spreadsheet error cells, "0 records" results).

Every check returns None when it does not apply, so it is left out of the plan.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from judge_runner.cases import Step, StepKind
from judge_runner.core import Outcome
from judge_runner.judges.rules.checks import (
    Finding,
    _first_match,
    _patterns,
    check,
    step_ref,
)
from judge_runner.judges.rules.evidence import (
    CaseView,
    failed,
    first_line,
    is_write,
    step_command,
    step_path,
)
from judge_runner.judges.rules.spec import CheckSpec


def _test_runs(view: CaseView, spec: CheckSpec) -> list[Step]:
    commands = _patterns(spec, "commands")
    excluded = _patterns(spec, "not_commands")  # e.g. installing the test tool is not a test
    return [s for s in view.executions
            if s.output is not None and _first_match(commands, step_command(s) or "")
            and not _first_match(excluded, step_command(s) or "")]


def _run_failed(step: Step, markers: list[re.Pattern[str]]) -> str | None:
    """Why a test run counts as failed (its exit status or a failure marker), else None."""
    if step.is_error or (step.exit_code is not None and step.exit_code != 0):
        return f"exit code {step.exit_code}" if step.exit_code is not None else "error result"
    marker = _first_match(markers, step.output or "")
    if marker is not None:
        return marker
    return "traceback" if failed(step) else None


@check("last_test_passed",
       support="the last test or verification run the agent made passed",
       refute="the last test or verification run the agent made failed")
def last_test_passed(view: CaseView, spec: CheckSpec) -> Finding | None:
    runs = _test_runs(view, spec)
    if not runs:
        return None
    markers = _patterns(spec, "failure_markers")
    last = runs[-1]
    earlier = sum(1 for s in runs[:-1] if _run_failed(s, markers))
    where = f"{len(runs)} test/verification run(s); the last at step {last.index}"
    command = first_line(step_command(last) or "", 100)
    why = _run_failed(last, markers)
    if why is not None:
        quote = why if why in (last.output or "") else command
        return Finding(Outcome.REFUTES, f"the last verification run failed ({why}): {command}",
                       where, (step_ref(last.index, quote),))
    history = f" after {earlier} failed earlier run(s)" if earlier else ""
    return Finding(Outcome.SUPPORTS, f"the last verification run passed{history}: {command}",
                   where, (step_ref(last.index, command),))


@check("report_discloses_gaps",
       support="(none: a report without admissions is not evidence of success)",
       refute="the final report admits partial work, assumptions, fallbacks or skipped parts")
def report_discloses_gaps(view: CaseView, spec: CheckSpec) -> Finding | None:
    step, text = view.final_message_step, view.final_report
    if not text.strip() or step is None:
        return None
    where = f"final report (step {step.index})"
    quote = _first_match(_patterns(spec, "phrases"), text)
    if quote is not None:
        return Finding(Outcome.REFUTES, f"the final report admits a gap: {quote!r}", where,
                       (step_ref(step.index, quote),))
    return Finding(Outcome.INCONCLUSIVE, "the final report admits no gap", where,
                   (step_ref(step.index),))


@check("obstacle_workaround",
       support="(none: no announced substitute is not evidence of success)",
       refute="after an obstacle on the intended path the agent announced a substitute")
def obstacle_workaround(view: CaseView, spec: CheckSpec) -> Finding | None:
    messages = [s for s in view.steps if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
    if not messages:
        return None
    obstacles = _patterns(spec, "obstacles")
    substitutes = _patterns(spec, "substitutes")
    where = f"{len(messages)} assistant messages"
    window = int(spec.number("window_chars", 300))
    for step in messages[:-1] if len(messages) > 1 else messages:
        text = step.text or ""
        for match in _all_matches(obstacles, text):
            substitute = _first_match(substitutes, text[match.end():match.end() + window])
            if substitute is not None:
                return Finding(Outcome.REFUTES, f"step {step.index}: obstacle "
                               f"{match.group(0)!r}, then a substitute {substitute!r}", where,
                               (step_ref(step.index, match.group(0)),))
    return Finding(Outcome.INCONCLUSIVE, "no announced substitute after an obstacle", where,
                   (step_ref(messages[-1].index),))


def _all_matches(patterns: list[re.Pattern[str]], text: str) -> list[re.Match[str]]:
    """Every match of every pattern, in text order."""
    found = [m for p in patterns for m in p.finditer(text)]
    return sorted(found, key=lambda m: (m.start(), m.end()))


def _seen_of_outputs(view: CaseView, tail: int) -> list[Step]:
    """Steps whose output shows what the outputs hold: from each output's last write on, the
    successful steps naming it; without known outputs, the last `tail` successful commands."""
    seen: dict[int, Step] = {}
    for output in view.outputs:
        start = view.last_write_index(output)
        if start is None:
            continue
        for step in view.tool_steps:
            if step.index < start or failed(step) or not step.output:
                continue
            if step.index == start or output.name in (step_command(step) or "") or \
                    output.matches(str((step.arguments or {}).get("file_path", ""))):
                seen[step.index] = step
    if not seen and not view.outputs:
        done = [s for s in view.executions if s.output and not failed(s)]
        seen = {s.index: s for s in done[-tail:]}
    return [seen[i] for i in sorted(seen)]


@check("values_sane",
       support="what the agent last saw of its outputs holds no degenerate values",
       refute="the outputs or the report hold degenerate values (NaN, inf, error cells, 0 found)")
def values_sane(view: CaseView, spec: CheckSpec) -> Finding | None:
    seen = _seen_of_outputs(view, int(spec.number("tail_commands", 3)))
    step = view.final_message_step
    if not seen and step is None:
        return None
    patterns = _patterns(spec, "degenerate")
    where = "outputs of the steps that wrote or showed the outputs, and the final report"
    for s in seen:
        quote = _first_match(patterns, s.output or "")
        if quote is not None:
            return Finding(Outcome.REFUTES, f"step {s.index} shows a degenerate value {quote!r}",
                           where, (step_ref(s.index, quote),))
    if step is not None:
        quote = _first_match(patterns, view.final_message or step.text or "")
        if quote is not None:
            return Finding(Outcome.REFUTES, f"the final report holds {quote!r}", where,
                           (step_ref(step.index, quote),))
    if not seen:
        return None
    return Finding(Outcome.SUPPORTS, f"{len(seen)} step(s) showing the outputs hold no "
                   "degenerate values", where, tuple(step_ref(s.index) for s in seen[:5]))


@check("outputs_computed",
       support="each data output was last written by a program the agent ran",
       refute="a data output was last written as text typed into a file-write tool")
def outputs_computed(view: CaseView, spec: CheckSpec) -> Finding | None:
    skip = {e.lower() for e in spec.words("ignore_extensions")}
    typed: list[Step] = []
    computed: list[Step] = []
    for output in view.outputs:
        if PurePosixPath(output.path).suffix.lower() in skip:
            continue
        index = view.last_write_index(output)
        step = view.step(index) if index is not None else None
        if step is None:
            continue
        (typed if is_write(step) else computed).append(step)
    if not typed and not computed:
        return None
    where = "the last write step of each data output"
    if typed:
        return Finding(Outcome.REFUTES, f"{len(typed)} data output(s) typed into a file-write "
                       f"tool ({', '.join(step_path(s) or '?' for s in typed)})", where,
                       tuple(step_ref(s.index) for s in typed))
    return Finding(Outcome.SUPPORTS, f"{len(computed)} data output(s) written by commands",
                   where, tuple(step_ref(s.index) for s in computed))
