"""Parser for Harbor's Agent Trajectory Interchange Format (`agent/trajectory.json`, ``ATIF-v1.x``).

The file is one JSON object: ``schema_version``, ``agent`` (name, version, model_name) and
``steps``. Each step has a ``source`` (system | user | agent), a ``message``, and for agent steps
optional ``reasoning_content``, ``tool_calls`` (``tool_call_id``, ``function_name``, ``arguments``)
and an ``observation`` whose ``results`` point back at calls through ``source_call_id``.

Mapping: agent messages and reasoning become text steps, tool calls become tool steps (a
skill-loading call, Claude Code's ``Skill`` or gemini-cli's ``activate_skill``, becomes a skill
step; gemini-cli's framed shell results are read by `gemini_cli`), observation results fill in
their call's output, user
and system messages after the first user prompt become notices (the prompt itself is the task
instruction, which the case carries separately). ATIF has no final ``result`` event: the run counts
as completed when its last step is an agent step none of whose tool calls is left without an
observation (a run cut off during a tool call did not finish); the last agent message is the
final message.
ATIF does not say which skills were available; ``agent.extra.skills`` is read when present,
otherwise the skills list is unknown (None) and the importer falls back to the skills used.
Raises `TranscriptError` for anything that is not an ATIF document.
"""

from __future__ import annotations

import json
from typing import Any

from judge_runner.cases import TerminationStatus
from judge_runner.ingest import gemini_cli, tools
from judge_runner.ingest.raw import RawKind, RawRun, RawStep, TranscriptError

FORMAT = "atif"


def parse(text: str) -> RawRun:
    return parse_document(load_json(text), len(text))


def load_json(text: str) -> Any:
    """The JSON document of a trajectory.json; TranscriptError when it is not usable JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"trajectory.json is not valid JSON (line {exc.lineno}: {exc.msg})") \
            from exc
    except RecursionError as exc:  # hostile input: nesting deeper than the parser's stack
        raise TranscriptError("trajectory.json is not usable JSON (nested too deeply)") from exc


def parse_document(doc: Any, raw_chars: int) -> RawRun:
    """An ATIF document already parsed from JSON text of `raw_chars` characters."""
    if not isinstance(doc, dict) or not str(doc.get("schema_version", "")).startswith("ATIF"):
        raise TranscriptError("trajectory.json has no ATIF schema_version")
    steps = doc.get("steps")
    if not isinstance(steps, list):
        raise TranscriptError("trajectory.json: 'steps' is missing or not a list")
    raw_agent = doc.get("agent")
    agent: dict[str, Any] = raw_agent if isinstance(raw_agent, dict) else {}
    run = RawRun(source_format=FORMAT, steps=[], skills=_declared_skills(agent),
                 raw_chars=raw_chars)
    name, version = agent.get("name"), agent.get("version")
    run.agent = " ".join(str(p) for p in (name, version) if p) or None
    run.model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
    _convert(steps, run)
    return run


def _declared_skills(agent: dict[str, Any]) -> list[str] | None:
    extra = agent.get("extra")
    skills = extra.get("skills") if isinstance(extra, dict) else None
    return list(dict.fromkeys(str(s) for s in skills)) if isinstance(skills, list) else None


def _convert(steps: list[Any], run: RawRun) -> None:
    pending: dict[str, RawStep] = {}
    seen_prompt = False
    last_source = None
    last_calls: list[RawStep] = []  # the tool calls of the last step
    for position, step in enumerate(steps):
        if not isinstance(step, dict):
            run.warnings.append(f"steps[{position}]: not an object, skipped")
            continue
        source = step.get("source")
        last_source = source
        before = len(run.steps)
        message = _text(step.get("message"))
        if source == "agent":
            if step.get("reasoning_content"):
                thinking = f"[thinking] {step['reasoning_content']}"
                run.steps.append(RawStep(RawKind.TEXT, text=thinking))
            if message:
                run.steps.append(RawStep(RawKind.TEXT, text=message))
                run.final_message = message
            for call in step.get("tool_calls") or []:
                _add_call(call, run, pending, position)
        elif source == "user" and not seen_prompt:
            seen_prompt = True  # the task prompt: carried by instruction.md
        elif message:
            run.steps.append(RawStep(RawKind.NOTICE, text=f"{source} message: {message}"))
        calls = [s for s in run.steps[before:] if s.kind in (RawKind.TOOL, RawKind.SKILL)]
        last_calls = calls
        observation = step.get("observation")
        if isinstance(observation, dict):
            for result in observation.get("results") or []:
                _add_result(result, run, pending, calls)
    unanswered = any(not call.has_result for call in last_calls)
    run.status = TerminationStatus.COMPLETED if last_source == "agent" and not unanswered \
        else TerminationStatus.NO_RESULT


def _add_call(call: Any, run: RawRun, pending: dict[str, RawStep], position: int) -> None:
    if not isinstance(call, dict):
        run.warnings.append(f"steps[{position}].tool_calls: entry is not an object, skipped")
        return
    name = str(call.get("function_name") or "unknown")
    args = call.get("arguments")
    arguments = args if isinstance(args, dict) else {"input": args}
    if name in tools.SHELL_TOOLS and "command" not in arguments and \
            isinstance(arguments.get("keystrokes"), str):
        # terminus-2's keystroke calls: the keystrokes are the command, as in every shell call
        arguments = {"command": arguments["keystrokes"],
                     **{k: v for k, v in arguments.items() if k != "keystrokes"}}
    step = RawStep(RawKind.TOOL, tool=name, tool_use_id=str(call.get("tool_call_id") or "") or None,
                   arguments=arguments)
    if name in tools.SKILL_TOOLS:
        step.kind = RawKind.SKILL
        step.skill = tools.skill_name(name, arguments)
    run.steps.append(step)
    if step.tool_use_id:
        pending[step.tool_use_id] = step


def _add_result(result: Any, run: RawRun, pending: dict[str, RawStep],
                calls: list[RawStep]) -> None:
    """Fill in the call a result answers. A result naming no call (terminus-2 logs one terminal
    output for a batch of keystroke calls) answers the calls of its own step: every one of them
    ran, and the output goes to the last."""
    if not isinstance(result, dict):
        return
    output = _text(result.get("content"))
    call_id = result.get("source_call_id")
    step = pending.pop(call_id, None) if isinstance(call_id, str) else None
    if step is None and call_id is None:
        waiting = [c for c in calls if not c.has_result]
        for call in waiting[:-1]:
            call.has_result = True
            pending.pop(call.tool_use_id or "", None)
        step = waiting[-1] if waiting else None
        if step is not None:
            pending.pop(step.tool_use_id or "", None)
    if step is None:
        run.steps.append(RawStep(RawKind.NOTICE, text="observation without a matching call",
                                 output=output))
        return
    step.output = output
    step.has_result = True
    framed = gemini_cli.shell_result(output, tools.shell_command(step.tool, step.arguments or {})) \
        if step.tool == gemini_cli.SHELL_TOOL else None
    if framed is not None:
        step.output, step.exit_code, step.is_error = framed.output, framed.exit_code, \
            framed.is_error
        return
    # ATIF has no error flag; Harbor's adapters prefix failed tool output this way.
    lowered = output.lstrip().lower()
    step.is_error = lowered.startswith(("error", "exit code", "traceback"))
    if step.kind is RawKind.SKILL and output:
        step.text = output


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multimodal content parts
        return "\n".join(str(p.get("text", f"[{p.get('type')} content]")) if isinstance(p, dict)
                         else str(p) for p in value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
