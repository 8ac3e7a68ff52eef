"""Parser for terminus-2 episode logs (`agent/trajectory.json` written as a list of turns).

Harbor's terminus-2 agent (and variants such as ``HarborTerminus2WithSkills``) logs a JSON list
of ``{"episode": N, "prompt": str, "response": str}``: what the harness sent the model and the
model's raw answer. A response is JSON with ``analysis``, ``plan``, ``commands`` (each
``{"keystrokes", "duration"}``) and an optional ``task_complete``, or ``{"load_skill": NAME}``.
The next prompt carries what came of it.

Mapping to raw steps:

* the first prompt is the harness's system prompt plus the task: it is not agent text and is
  not repeated (the instruction is carried by ``instruction.md``); its ``available_skills``
  block, when present, is the list of skills the agent had;
* a response's analysis and plan become one assistant text step;
* its command batch becomes one ``terminal`` tool call (``command``: the keystrokes as typed,
  one command per keystroke entry) whose output is the terminal output of the next prompt
  ("New Terminal Output:" / "Current Terminal Screen:"); the terminal reports no exit status,
  so ``exit_code`` stays unknown and only a Python traceback or "command not found" in the
  output marks the call as an error;
* ``{"load_skill": NAME}`` becomes a skill-use step whose body is the "Loaded skill: NAME"
  prompt that follows (an error step when the harness answers anything else);
* a response the harness could not parse ("Previous response had parsing errors") is kept as
  assistant text and followed by an error notice holding the harness's message; its commands
  never ran and make no tool call;
* harness warnings and any other prompt (a completion check, a context hand-off) become notices;
* the last response's analysis and plan are the final message; the run is ``completed`` when it
  set ``task_complete``, else ``no_result`` (the harness stopped it: a timeout or turn limit).

Files the agent typed into the terminal are recovered from heredocs only (see `artifacts`);
what the terminal cannot show is said in the case's notes.
When ``trajectory.json`` is missing, the same turns are read from the per-turn folders
``agent/episode-N/{prompt,response}.txt`` (`from_episode_dirs`).
Raises `TranscriptError` when the document is not such a list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from judge_runner.cases import TerminationStatus
from judge_runner.ingest.paths import NotRegularFileError, describe, read_regular
from judge_runner.ingest.raw import RawKind, RawRun, RawStep, TranscriptError

FORMAT = "terminus-2"
TOOL = "terminal"
SKILL_TOOL = "load_skill"
_OUTPUT_HEADS = ("New Terminal Output:", "Current Terminal Screen:", "Current terminal state:")
_PARSE_ERROR = "Previous response had parsing errors:"
_WARNINGS = "Previous response had warnings:"
_LOADED = re.compile(r"^Loaded skill:\s*(?P<name>[^\n]+)\n(?:---\n)?")
_ERROR_OUTPUT = re.compile(r"Traceback \(most recent call last\)|: command not found")
_SKILLS_BLOCK = re.compile(r"available_skills:\s*(?P<list>\[.*?\])\s*(?:\n[A-Z ]+:|\Z)", re.S)
_SKILL_NAME = re.compile(r'"name"\s*:\s*"(?P<name>[^"]+)"')
_EDITORS = re.compile(r"^\s*(?:sudo\s+)?(?P<editor>vim?|nano|emacs|ed|pico|joe|micro)\b", re.M)
_CONFIRM = re.compile(r"\n*Are you sure you want to mark the task as complete\?.*\Z", re.S)
NOTE = ("terminus-2 types keystrokes into a terminal: file contents are recovered only from "
        "heredocs (cat > file << 'EOF'); files written by redirects, by programs the agent "
        "ran, or by an editor are listed without content or not at all")


def looks_like(doc: Any) -> bool:
    """Whether a parsed trajectory.json is a terminus-2 episode list."""
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(e, dict) and "prompt" in e and "response" in e for e in doc[:3])


def parse_document(doc: Any, raw_chars: int) -> RawRun:
    if not looks_like(doc):
        raise TranscriptError("trajectory.json is not a terminus-2 episode list "
                              "(a JSON list of {episode, prompt, response})")
    run = RawRun(source_format=FORMAT, steps=[], skills=None, raw_chars=raw_chars,
                 agent="terminus-2", notes=[NOTE])
    _Parser(run).feed(doc)
    return run


class _Parser:
    def __init__(self, run: RawRun) -> None:
        self.run = run
        self.pending: RawStep | None = None  # the call waiting for the next prompt
        self.calls = 0
        self.task_complete = False
        self.last_text: str | None = None
        self.editors: list[str] = []

    def feed(self, entries: list[Any]) -> None:
        for position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                self.run.warnings.append(f"entry {position}: not an object, skipped")
                continue
            prompt = _str(entry.get("prompt"))
            if position == 0:
                self.run.skills = _available_skills(prompt)
            else:
                self._prompt(prompt)
            following = entries[position + 1] if position + 1 < len(entries) else None
            rejected = isinstance(following, dict) and \
                _str(following.get("prompt")).startswith(_PARSE_ERROR)
            self._response(_str(entry.get("response")), rejected)
        if self.task_complete and self.pending is not None and self.pending.kind is RawKind.TOOL:
            self.pending.has_result = True  # sent before the run ended; its output never logged
        self.run.final_message = self.last_text
        self.run.status = TerminationStatus.COMPLETED if self.task_complete else \
            TerminationStatus.NO_RESULT
        self.run.result_subtype = "task_complete" if self.task_complete else None
        self.run.num_turns = len(entries)
        if self.editors:
            self.run.notes.append("the agent opened an editor (" + ", ".join(
                self.editors) + "): what it typed there cannot be recovered")

    def _prompt(self, prompt: str) -> None:
        pending, self.pending = self.pending, None
        if prompt.startswith(_PARSE_ERROR):
            self.run.steps.append(RawStep(RawKind.NOTICE, text="the harness rejected the "
                                          "previous response", output=prompt.strip(),
                                          is_error=True))
            return
        loaded = _LOADED.match(prompt)
        if pending is not None and pending.kind is RawKind.SKILL:
            pending.has_result = True
            if loaded is not None:
                pending.text = prompt[loaded.end():]
                pending.output = f"Loaded skill: {loaded.group('name').strip()}"
            else:
                pending.output = prompt.strip() or "(no answer)"
                pending.is_error = True
            return
        if loaded is not None:  # a skill the harness loaded without a request we saw
            self.run.steps.append(RawStep(RawKind.SKILL, tool=SKILL_TOOL,
                                          skill=loaded.group("name").strip(),
                                          text=prompt[loaded.end():], has_result=True))
            return
        if prompt.startswith(_WARNINGS):
            warning, _, prompt = _split_head(prompt)
            self.run.steps.append(RawStep(RawKind.NOTICE, text=warning.strip()))
        confirm = _CONFIRM.search(prompt)
        if confirm is not None:
            prompt = prompt[:confirm.start()]
        head = next((h for h in _OUTPUT_HEADS if prompt.lstrip().startswith(h)), None)
        if head is not None and pending is not None:
            output = prompt.lstrip()[len(head):].lstrip("\n")
            pending.output = output
            pending.has_result = True
            pending.is_error = bool(_ERROR_OUTPUT.search(output))
        elif head is None and prompt.strip():
            self.run.steps.append(RawStep(RawKind.NOTICE, text=f"harness prompt: {prompt}"))
        if confirm is not None:
            self.run.steps.append(RawStep(RawKind.NOTICE, text="the harness asked the agent to "
                                          "confirm that the task is complete"))

    def _response(self, response: str, rejected: bool) -> None:
        answer = _answer(response)
        if answer is None or rejected:
            if response.strip():
                self.run.steps.append(RawStep(RawKind.TEXT, text=response))
            return
        skill = answer.get("load_skill")
        if isinstance(skill, str) and skill:
            self.calls += 1
            step = RawStep(RawKind.SKILL, tool=SKILL_TOOL, skill=skill,
                           tool_use_id=f"{SKILL_TOOL}-{self.calls}", arguments={"name": skill})
            self.run.steps.append(step)
            self.pending = step
            return
        text = "\n\n".join(f"{key}: {answer[key]}" if key != "analysis" else str(answer[key])
                           for key in ("analysis", "plan") if answer.get(key))
        if text:
            self.run.steps.append(RawStep(RawKind.TEXT, text=text))
            self.last_text = text
        keystrokes = [str(c.get("keystrokes", "")) for c in answer.get("commands") or []
                      if isinstance(c, dict)]
        if any(keystrokes):
            self.calls += 1
            step = RawStep(RawKind.TOOL, tool=TOOL, tool_use_id=f"{TOOL}-{self.calls}",
                           arguments={"command": "".join(keystrokes)},
                           commands=[k for k in keystrokes if k.strip()])
            self.editors += [m.group("editor") for k in keystrokes for m in _EDITORS.finditer(k)]
            self.run.steps.append(step)
            self.pending = step
        if answer.get("task_complete") is True:
            self.task_complete = True


def _answer(response: str) -> dict[str, Any] | None:
    """The response's JSON object, tolerating text around it as the harness does."""
    for candidate in (response, response[response.find("{"):response.rfind("}") + 1]):
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def _available_skills(prompt: str) -> list[str] | None:
    """The skills listed in the system prompt's skill block; None when it has none."""
    match = _SKILLS_BLOCK.search(prompt)
    if match is None:
        return None
    try:
        listed = json.loads(match.group("list"))
    except json.JSONDecodeError:
        return list(dict.fromkeys(m.group("name") for m in
                                  _SKILL_NAME.finditer(match.group("list"))))
    names = [str(s.get("name")) for s in listed if isinstance(s, dict) and s.get("name")] \
        if isinstance(listed, list) else []
    return list(dict.fromkeys(names))


def _split_head(prompt: str) -> tuple[str, str, str]:
    """A warnings block and the rest: the block ends at the first terminal-output heading."""
    cut = min((i for i in (prompt.find(h) for h in _OUTPUT_HEADS) if i >= 0), default=-1)
    return (prompt, "", "") if cut < 0 else (prompt[:cut], "", prompt[cut:])


def _str(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


EPISODE_DIR = re.compile(r"^episode-(\d+)$")
MAX_EPISODE_BYTES = 64 * 1024 * 1024


def from_episode_dirs(agent: Path) -> RawRun | None:
    """The run from terminus-2's per-turn folders ``agent/episode-N/{prompt,response}.txt``
    (kept when ``trajectory.json`` is not), in episode order; None when there are none. A turn
    whose files are missing or unreadable is skipped with a warning."""
    found = sorted((int(m.group(1)), p) for p in (agent.iterdir() if agent.is_dir() else [])
                   if (m := EPISODE_DIR.match(p.name)) and describe(p) == "directory")
    if not found:
        return None
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    size = 0
    for number, folder in found:
        try:
            prompt, response = (read_regular(folder / name, MAX_EPISODE_BYTES).decode("utf-8")
                                for name in ("prompt.txt", "response.txt"))
        except (NotRegularFileError, OSError, UnicodeDecodeError) as exc:
            problems.append(f"{folder.name}: {exc}, skipped")
            continue
        size += len(prompt) + len(response)
        entries.append({"episode": number, "prompt": prompt, "response": response})
    if not entries:
        raise TranscriptError("no readable agent/episode-N/{prompt,response}.txt")
    run = parse_document(entries, size)
    run.warnings += problems
    return run
