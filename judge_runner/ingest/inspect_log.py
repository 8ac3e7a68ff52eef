"""inspect_ai eval logs (``.eval`` / ``.json``) as cases, read with inspect_ai's own log reader.

Needs the optional extra: ``pip install 'judge-runner[inspect]'``. One case per sample (and
epoch): the instruction is the sample's input, the steps its messages — assistant text (and
reasoning) as assistant messages, each tool call as a tool call whose output is the matching
tool message (``error`` set: an error step), system and later user messages as notices — and
the final message the sample's output completion. The label comes from one named scorer
(``--scorer``; by default the log's only or first scorer): ``value_to_float`` of its value (so
``C``/``I``/``P`` and numbers both work) at or above ``--pass-threshold`` is pass. The task is
the eval's task name; the model and the solver are recorded as the case's model and agent.
Samples are streamed one at a time (`read_eval_log_samples`), so a large log is never held
whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge_runner.cases import TerminationStatus
from judge_runner.core import Label
from judge_runner.ingest.external import PendingRun, RunError, RunInput
from judge_runner.ingest.raw import RawKind, RawRun, RawStep

FORMAT = "inspect"
SUFFIXES = (".eval", ".json")


def _inspect() -> Any:
    try:
        import inspect_ai.log as log
    except ImportError as exc:
        raise ValueError("--format inspect needs inspect_ai: install the 'inspect' extra "
                         "(pip install 'judge-runner[inspect]')") from exc
    return log


def find_samples(paths: list[Path], scorer: str | None,
                 pass_threshold: float) -> Iterator[PendingRun]:
    """Every sample of every log under `paths`, streamed; a log that cannot be read at all is
    one failed entry naming it."""
    log = _inspect()
    for file in log_files(paths):
        try:
            header = log.read_eval_log(str(file), header_only=True)
            samples = log.read_eval_log_samples(str(file), all_samples_required=False)
            chosen = _scorer(header, scorer)
        except Exception as exc:  # inspect_ai raises many types for an unreadable log
            yield PendingRun(file.name, _raiser(f"{file}: not a readable inspect_ai log "
                                                f"({type(exc).__name__}: {exc})"))
            continue
        yield from _pending(file, header, samples, chosen, pass_threshold)


def log_files(paths: list[Path]) -> list[Path]:
    """The files to read as logs: each path that is not a folder, and the .eval and .json files
    under each folder (sorted)."""
    files: list[Path] = []
    for path in paths:
        files += sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()) \
            if path.is_dir() else [path]
    return files


def require_inspect() -> None:
    """ValueError naming the extra to install when inspect_ai is missing."""
    _inspect()


def _pending(file: Path, header: Any, samples: Iterator[Any], scorer: str | None,
             pass_threshold: float) -> Iterator[PendingRun]:
    while True:
        try:
            sample = next(samples)
        except StopIteration:
            return
        except Exception as exc:  # a damaged sample ends this log, not the import
            yield PendingRun(f"{file.name}#(rest)", _raiser(
                f"{file}: samples after this point cannot be read ({type(exc).__name__}: "
                f"{exc})"))
            return
        yield PendingRun(f"{file.name}#{sample.id}@{sample.epoch}",
                         _loader(file, header, sample, scorer, pass_threshold))


def _loader(file: Path, header: Any, sample: Any, scorer: str | None,
            pass_threshold: float) -> Any:
    return lambda: _sample(file, header, sample, scorer, pass_threshold)


def _raiser(message: str) -> Any:
    def load() -> RunInput:
        raise RunError(message)
    return load


def _scorer(header: Any, wanted: str | None) -> str | None:
    names = [s.name for s in (header.results.scores if header.results else [])]
    if wanted is not None and wanted not in names:
        raise RunError(f"no scorer {wanted!r} in the log (it has {', '.join(names) or 'none'})")
    return wanted or (names[0] if names else None)


def _sample(file: Path, header: Any, sample: Any, scorer: str | None,
            pass_threshold: float) -> RunInput:
    from inspect_ai.scorer import value_to_float

    run = RawRun(source_format=FORMAT, steps=[], skills=None, model=header.eval.model,
                 agent=_solver(header))
    pending: dict[str, RawStep] = {}
    seen_input = False
    for message in sample.messages:
        role = message.role
        if role == "assistant":
            _assistant(message, run, pending)
        elif role == "tool":
            _tool(message, run, pending)
        elif role == "user" and not seen_input:
            seen_input = True  # the sample input: the case's instruction
        else:
            run.steps.append(RawStep(RawKind.NOTICE, text=f"{role} message: {message.text}"))
    completion = sample.output.completion if sample.output is not None else ""
    run.final_message = completion or None
    run.status = TerminationStatus.ERROR if sample.error else TerminationStatus.COMPLETED
    run.raw_chars = len(sample.model_dump_json())
    score = sample.scores.get(scorer) if sample.scores and scorer else None
    reward = float(value_to_float()(score.value)) if score is not None else None
    label = None if reward is None else Label.PASS if reward >= pass_threshold else Label.FAIL
    instruction = sample.input if isinstance(sample.input, str) else "\n\n".join(
        m.text for m in sample.input if m.role == "user")
    return RunInput(task=header.eval.task, trial_name=f"{sample.id}@{sample.epoch}",
                    folder=f"{file.name}:{header.eval.eval_id}", instruction=instruction,
                    run=run, reward=reward, label=label)


def _solver(header: Any) -> str | None:
    plan = getattr(header, "plan", None)
    steps = [s.solver for s in plan.steps] if plan is not None and plan.steps else []
    return "inspect_ai " + "+".join(steps) if steps else "inspect_ai"


def _assistant(message: Any, run: RawRun, pending: dict[str, RawStep]) -> None:
    content = message.content
    parts = content if isinstance(content, list) else []
    for part in parts:
        if part.type == "reasoning" and getattr(part, "reasoning", None):
            run.steps.append(RawStep(RawKind.TEXT, text=f"[thinking] {part.reasoning}"))
    if message.text:
        run.steps.append(RawStep(RawKind.TEXT, text=message.text))
    for call in message.tool_calls or []:
        arguments = call.arguments if isinstance(call.arguments, dict) else \
            {"input": call.arguments}
        step = RawStep(RawKind.TOOL, tool=call.function, tool_use_id=call.id,
                       arguments=json.loads(json.dumps(arguments, default=str)))
        run.steps.append(step)
        pending[call.id] = step


def _tool(message: Any, run: RawRun, pending: dict[str, RawStep]) -> None:
    step = pending.pop(message.tool_call_id, None) if message.tool_call_id else None
    error = message.error
    output = message.text if not error else f"{error.type}: {error.message}"
    if step is None:
        run.steps.append(RawStep(RawKind.NOTICE, text="tool result without a matching call",
                                 output=output, is_error=bool(error)))
        return
    step.output = output
    step.has_result = True
    step.is_error = error is not None
