"""Evidence readers: one pass over a case package into the facts every check reads.

What counts as what (format-agnostic, decided from step arguments rather than tool names where
possible, so Claude Code and ATIF transcripts read the same way):

- an *execution* is a tool call whose arguments carry a ``command``/``cmd`` string;
- a *file write* is a tool call with a file path and ``content``/``new_string``/``edits``;
- a *file read* is a read-like tool (``Read``, ``view``, ...) with a file path;
- a step *failed* when it is flagged ``is_error``, exited non-zero, or its output shows a Python
  traceback (piping through ``tail`` hides the exit code but not the traceback).

Required outputs are paths named in the instruction in a sentence that asks for something to be
written (save, write, output, create, ...); input-only sentences never make a path required.
Nothing here raises on odd content: a missing field is simply no evidence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath

from judge_runner.cases import ArtifactRecord, CasePackage, Step, StepKind, Trajectory
from judge_runner.core import SAME_AS_FINAL, RefKind
from judge_runner.text import quote_found as text_quote_found

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\w*Error: ", re.MULTILINE)
READ_TOOLS = frozenset({"read", "view", "read_file", "open_file", "cat"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filename")
WRITE_KEYS = ("content", "new_string", "edits", "new_source")
OUTPUT_VERBS = re.compile(
    r"\b(save|saved|saving|write|written|writing|output|create|generate|produce|store|export"
    r"|fill(?:ed)? in|give me|deliver|compile|put)\b",
    re.IGNORECASE,
)
INPUT_CUES = re.compile(
    r"\b(input|inputs|given|provided|located|load|loads|loading|read|reads|from|specified"
    r"|template|contains|documented|is in|are in|stored in|working on|key in)\b",
    re.IGNORECASE,
)
# code or shell that writes a file: redirects, tee/cp/mv, and the usual save/dump calls
WRITE_TOKENS = re.compile(
    r"(?<![<>])>{1,2}\s*[\w\"'/.\-]|\btee\b|\bcp\b|\bmv\b|\.(write|save|savez|savetxt|dump"
    r"|to_csv|to_excel|to_json|to_parquet|writerows?)\b|json\.dump|open\([^)]*['\"][wa]b?\+?['\"]"
    r"|shutil\.copy",
)
INSPECTION = re.compile(r"^\s*(cat|head|tail|ls|wc|stat|file|less|more|jq|diff|md5sum|sha256sum"
                        r"|du|tree|xxd|od)\b")
_WINDOW = 100  # characters before a path searched for its cue
_ABS_PATH = re.compile(r"(?<![\w:/.])/(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,6}\b")
_QUOTED_NAME = re.compile(r"[`'\"]([\w\-./]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,6})[`'\"]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")


@dataclass(frozen=True)
class RequiredOutput:
    path: str  # as written in the instruction: absolute, or a bare file name
    quote: str  # the instruction sentence that asks for it

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name

    def matches(self, candidate: str) -> bool:
        """True when `candidate` (a path seen in the run) is this output."""
        if self.path.startswith("/"):
            return candidate == self.path or (
                not candidate.startswith("/") and PurePosixPath(candidate).name == self.name
            )
        return PurePosixPath(candidate).name == self.name


def required_outputs(instruction: str) -> list[RequiredOutput]:
    """Paths the instruction asks the agent to write, in order of first mention, deduplicated.

    A path is an output when, in its sentence, an output verb precedes it more closely than any
    input cue ("save the result to X" yes; "the input X", "load X", "specified in X" no). A list
    item without either inherits the verb of the sentence that introduces the list.
    """
    found: dict[str, RequiredOutput] = {}
    header_asks = False
    for sentence, is_item in _sentences(instruction):
        if not is_item and sentence.endswith(":"):
            header_asks = bool(OUTPUT_VERBS.search(sentence))  # a new list lead-in
        for path, start in _paths_in(sentence):
            role = _role(sentence[max(0, start - _WINDOW):start])
            if role == "output" or (role is None and is_item and header_asks):
                name = PurePosixPath(path).name
                if not any(o.name == name for o in found.values()):
                    found[name] = RequiredOutput(path=path, quote=sentence[:300])
    return list(found.values())


def _role(prefix: str) -> str | None:
    """'output' or 'input' by the cue nearest before a path, or None without a cue."""
    verb = [m.end() for m in OUTPUT_VERBS.finditer(prefix)]
    cue = [m.end() for m in INPUT_CUES.finditer(prefix)]
    if not verb and not cue:
        return None
    if verb and (not cue or verb[-1] > cue[-1]):
        return "output"
    return "input"


def _sentences(text: str) -> list[tuple[str, bool]]:
    """(sentence, starts a list item) for each non-empty sentence, line by line."""
    out: list[tuple[str, bool]] = []
    for line in text.splitlines():
        marker = _LIST_ITEM.match(line)
        body = line[marker.end():] if marker else line
        for n, part in enumerate(_SENTENCE_END.split(body)):
            if part.strip():
                out.append((part.strip(), bool(marker) and n == 0))
    return out


def _paths_in(sentence: str) -> list[tuple[str, int]]:
    """(path, position) of absolute paths and quoted file names, in order of position."""
    paths = [(m.group(0), m.start()) for m in _ABS_PATH.finditer(sentence)]
    for m in _QUOTED_NAME.finditer(sentence):
        name = m.group(1)
        if "://" in name or name.startswith("www."):
            continue
        if not any(p.endswith("/" + name.lstrip("/")) or p == name for p, _ in paths):
            paths.append((name, m.start()))
    return sorted(paths, key=lambda item: item[1])


def step_path(step: Step) -> str | None:
    args = step.arguments or {}
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def step_command(step: Step) -> str | None:
    args = step.arguments or {}
    for key in ("command", "cmd"):
        value = args.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


def is_execution(step: Step) -> bool:
    return step.kind is StepKind.TOOL_CALL and step_command(step) is not None


def is_write(step: Step) -> bool:
    args = step.arguments or {}
    return (step.kind is StepKind.TOOL_CALL and step_path(step) is not None
            and any(k in args for k in WRITE_KEYS))


def is_read(step: Step) -> bool:
    return (step.kind is StepKind.TOOL_CALL and (step.tool or "").lower() in READ_TOOLS
            and step_path(step) is not None)


def failed(step: Step) -> bool:
    if step.is_error or (step.exit_code is not None and step.exit_code != 0):
        return True
    return bool(step.output and TRACEBACK.search(step.output))


def step_text(step: Step) -> str:
    """Everything a step says, for substring search: text, arguments and output."""
    parts = [step.skill or "", step.text or "", step.output or ""]
    if step.arguments:
        parts.append(json.dumps(step.arguments, sort_keys=True, ensure_ascii=False))
    return "\n".join(parts)


def first_line(text: str, limit: int = 160) -> str:
    """A short verbatim quote: the first non-empty line of `text`, cut to `limit` characters."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit].strip()
    return ""


def _how_written(step: Step, output: RequiredOutput, scripts: list[tuple[str, int, bool]],
                 strict: bool) -> str | None:
    if any(output.matches(p) for p in step.files_touched):
        return "files touched by the step"
    if is_write(step) and output.matches(step_path(step) or ""):
        return f"{step.tool} wrote it"
    command = step_command(step)
    if command is None or step.output is None:
        return None
    if output.name in command:
        if WRITE_TOKENS.search(command):
            return "a successful command writes it"
        if not strict and not INSPECTION.match(command):
            return "a successful command names it"
    for name, index, writes in scripts:
        if name and index < step.index and name in command and (writes or not strict):
            return f"ran {name} (written at step {index})"
    return None


def quote_found(view: CaseView, kind: RefKind, ref: str, quote: str) -> bool:
    """Whether `quote` occurs (whitespace-insensitively) in the source an evidence ref names; a
    blank quote never does."""
    if kind is RefKind.STEP and ref.isdigit():
        step = view.step(int(ref))
        return step is not None and text_quote_found(quote, step_text(step))
    if kind is RefKind.INSTRUCTION:
        return text_quote_found(quote, view.instruction)
    return False


@dataclass(frozen=True)
class WriteEvidence:
    """Why we believe a path was written: an artifact, a write step, or a command that wrote it."""

    kind: RefKind  # ARTIFACT or STEP
    ref: str  # artifact path under artifacts/, or step index
    how: str


class CaseView:
    """Facts about one case, computed lazily once and shared by all checks."""

    def __init__(self, case: CasePackage) -> None:
        self.case = case

    @cached_property
    def trajectory(self) -> Trajectory:
        return self.case.trajectory

    @cached_property
    def steps(self) -> list[Step]:
        """The trajectory's steps, with the importer's stand-in for a repeated final report
        replaced by the report itself, so every check reads the real text."""
        final = self.trajectory.final_message
        return [s.model_copy(update={"text": final})
                if s.text == SAME_AS_FINAL and final is not None else s
                for s in self.trajectory.steps]

    def step(self, index: int) -> Step | None:
        return next((s for s in self.steps if s.index == index), None)

    @cached_property
    def instruction(self) -> str:
        return self.case.instruction

    @cached_property
    def artifacts(self) -> list[ArtifactRecord]:
        return list(self.case.meta.artifacts)

    @cached_property
    def skills(self) -> list[str]:
        return list(self.case.meta.skills)

    @cached_property
    def tool_steps(self) -> list[Step]:
        return [s for s in self.steps if s.kind is StepKind.TOOL_CALL]

    @cached_property
    def executions(self) -> list[Step]:
        return [s for s in self.steps if is_execution(s)]

    @cached_property
    def outputs(self) -> list[RequiredOutput]:
        return required_outputs(self.instruction)

    @cached_property
    def final_message(self) -> str:
        return self.trajectory.final_message or ""

    @cached_property
    def final_message_step(self) -> Step | None:
        """The assistant step holding the final report, else the last assistant step."""
        messages = [s for s in self.steps if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
        final = self.final_message.strip()
        for step in reversed(messages):
            if final and (step.text or "").strip() and (step.text or "").strip() in final:
                return step
        return messages[-1] if messages else None

    @cached_property
    def final_report(self) -> str:
        """The final report's text: the final message, else the text of its step."""
        step = self.final_message_step
        return self.final_message or (step.text if step else "") or ""

    @property
    def last_step(self) -> Step | None:
        return self.steps[-1] if self.steps else None

    def stored_artifact(self, output: RequiredOutput) -> ArtifactRecord | None:
        """The artifact record of `output` whose stored copy is readable (see
        `CasePackage.artifact_file`), or None."""
        for record in self.artifacts:
            if output.matches(record.path) and self.case.artifact_file(record) is not None:
                return record
        return None

    def write_evidence(self, output: RequiredOutput) -> WriteEvidence | None:
        """The strongest sign that `output` was produced, or None when the run shows none.

        In order: a stored artifact; the latest step that clearly wrote it (see `write_steps`);
        the latest successful command that names it, directly or through a script it ran (long
        commands are cut by the importer, so the write call itself may be invisible); the latest
        successful read or inspection of it that returned content (the file existed then).
        """
        record = self.stored_artifact(output)
        if record is not None and record.stored_as is not None:
            return WriteEvidence(RefKind.ARTIFACT, record.stored_as, f"artifact {record.path}")
        for strict in (True, False):
            writes = self.write_steps(output, strict=strict)
            if writes:
                return writes[-1]
        for step in reversed(self.tool_steps):
            if failed(step) or not step.output:
                continue
            if (is_read(step) and output.matches(step_path(step) or "")) or \
                    output.name in (step_command(step) or ""):
                return WriteEvidence(RefKind.STEP, str(step.index), "read back with content")
        return None

    def write_steps(self, output: RequiredOutput, *, strict: bool = True) -> list[WriteEvidence]:
        """Successful steps that wrote `output`, in trace order.

        strict: write tools, files touched, commands with a write call or redirect naming it, and
        runs of a script that names it next to a write call. Not strict: also any successful
        command naming it that is not a pure inspection (cat, head, ls, ...), and runs of any
        script that names it.
        """
        scripts = [(PurePosixPath(step_path(s) or "").name, s.index,
                    bool(WRITE_TOKENS.search(step_text(s))))
                   for s in self.steps if is_write(s) and output.name in step_text(s)]
        found: list[WriteEvidence] = []
        for step in self.tool_steps:
            if failed(step):
                continue
            how = _how_written(step, output, scripts, strict)
            if how is not None:
                found.append(WriteEvidence(RefKind.STEP, str(step.index), how))
        return found

    def last_write_index(self, output: RequiredOutput) -> int | None:
        writes = self.write_steps(output)
        return int(writes[-1].ref) if writes else None

    @cached_property
    def skill_uses(self) -> list[Step]:
        """Steps where the agent loaded a task-time skill or read a file of one."""
        uses = [s for s in self.steps if s.kind is StepKind.SKILL_USE]
        names = [n.lower() for n in self.skills]
        for step in self.tool_steps:
            path = (step_path(step) or "").lower()
            if is_read(step) and "/skills/" in path and any(n in path for n in names):
                uses.append(step)
        return sorted(uses, key=lambda s: s.index)
