"""The plain run format: what to convert your own agent's runs into (docs/case-format.md).

One folder per run::

    <run>/
      run.json         PlainRun: task, optional agent, model, skills, final message, status
      instruction.md   the task instruction the agent got
      steps.jsonl      one PlainStep per line, in order
      artifacts/       optional: the final files, as <path the agent saw without leading />
      skills/<name>/   optional: the skills the agent had, as it had them
      label.json       optional PlainLabel: label and/or reward

`judge-runner import --format plain RUN...` imports run folders (or folders holding them: a run
folder is one with ``run.json``). The JSON Schema of each file is printed by
`judge-runner schema`. Steps are taken as written (no harness quirks are guessed): a
``tool_call`` with a ``command`` argument is a shell call, one with ``file_path`` and
``content`` a file write (``write_file``/``Write``), and its output and ``is_error`` are what the
judge sees. A bad line is reported with its line number and the run fails; other runs go on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge_runner.cases import StepKind, TerminationStatus
from judge_runner.core import Label
from judge_runner.ingest.external import PendingRun, RunError, RunInput
from judge_runner.ingest.paths import NotRegularFileError, describe, read_regular
from judge_runner.ingest.raw import RawKind, RawRun, RawStep
from judge_runner.validation import problem

FORMAT = "plain"
RUN_FILE = "run.json"
STEPS_FILE = "steps.jsonl"
LABEL_FILE = "label.json"
INSTRUCTION_FILE = "instruction.md"
MAX_FILE_BYTES = 512 * 1024 * 1024
_KINDS = {StepKind.ASSISTANT_MESSAGE: RawKind.TEXT, StepKind.TOOL_CALL: RawKind.TOOL,
          StepKind.SKILL_USE: RawKind.SKILL, StepKind.NOTICE: RawKind.NOTICE}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlainRun(_Strict):
    """run.json."""

    task: str = Field(min_length=1, description="task name; runs of one task share it")
    agent: str | None = Field(None, description="the agent and its version")
    model: str | None = Field(None, description="the model the agent ran on")
    skills: list[str] | None = Field(
        None, description="skills the agent had (folders under skills/); omitted: the skills "
                          "its skill_use steps name")
    final_message: str | None = Field(None, description="the agent's last word")
    status: TerminationStatus = Field(TerminationStatus.COMPLETED,
                                      description="completed, error, or no_result (cut off)")
    category: str | None = Field(None, description="task category, mapped to a domain")


class PlainStep(_Strict):
    """One line of steps.jsonl."""

    kind: StepKind
    text: str | None = Field(None, description="assistant text, skill body, notice text")
    tool: str | None = Field(None, description="tool name (tool_call, skill_use)")
    tool_use_id: str | None = None
    arguments: dict[str, Any] | None = None
    output: str | None = Field(None, description="the tool's result as the agent saw it")
    is_error: bool = False
    exit_code: int | None = None
    skill: str | None = Field(None, description="the skill of a skill_use step")


class PlainLabel(_Strict):
    """label.json: the verifier's outcome (never shown to a judge)."""

    label: Label | None = None
    reward: float | None = Field(None, allow_inf_nan=False)


def schemas() -> dict[str, Any]:
    return {f"plain/{RUN_FILE}": PlainRun.model_json_schema(),
            f"plain/{STEPS_FILE} (one per line)": PlainStep.model_json_schema(),
            f"plain/{LABEL_FILE}": PlainLabel.model_json_schema()}


def find_runs(roots: list[Path], pass_threshold: float) -> list[PendingRun]:
    """Every run folder under `roots` (sorted), each read when its turn comes."""
    return [PendingRun(display, _loader(path, pass_threshold))
            for path, display in sorted(run_folders(roots).items(), key=lambda item: item[1])]


def run_folders(roots: list[Path]) -> dict[Path, str]:
    """The run folders under `roots` (folders holding run.json; a root that is not a folder is
    taken as one, and fails when read), each with the name it is reported under."""
    found: dict[Path, str] = {}
    for root in roots:
        if (root / RUN_FILE).is_file() or not root.is_dir():
            found.setdefault(root.absolute(), root.name)
            continue
        for dirpath, dirnames, _ in os.walk(root, followlinks=False):
            dirnames.sort()
            current = Path(dirpath)
            if (current / RUN_FILE).is_file():
                found.setdefault(current.absolute(),
                                 f"{root.name}/{current.relative_to(root).as_posix()}")
                dirnames.clear()
    return found


def _loader(path: Path, pass_threshold: float) -> Any:
    return lambda: load_run(path, pass_threshold)


def load_run(folder: Path, pass_threshold: float) -> RunInput:
    meta = _model(PlainRun, _read(folder / RUN_FILE), RUN_FILE)
    instruction = _read(folder / INSTRUCTION_FILE)
    text = _read(folder / STEPS_FILE)
    run = RawRun(source_format=FORMAT, steps=[], skills=meta.skills, agent=meta.agent,
                 model=meta.model, final_message=meta.final_message, status=meta.status,
                 raw_chars=len(text))
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RunError(f"{STEPS_FILE} line {lineno}: not JSON ({exc.msg})") from exc
        step = _model(PlainStep, data, f"{STEPS_FILE} line {lineno}")
        run.steps.append(RawStep(_KINDS[step.kind], text=step.text, tool=step.tool,
                                 tool_use_id=step.tool_use_id, arguments=step.arguments,
                                 output=step.output, is_error=step.is_error,
                                 exit_code=step.exit_code, skill=step.skill,
                                 has_result=step.output is not None or step.is_error))
    label, reward = None, None
    if describe(folder / LABEL_FILE) is not None:
        given = _model(PlainLabel, _read(folder / LABEL_FILE), LABEL_FILE)
        reward = given.reward
        label = given.label or (None if reward is None else
                                Label.PASS if reward >= pass_threshold else Label.FAIL)
    return RunInput(task=meta.task, trial_name=folder.name, folder=folder.parent.name,
                    instruction=instruction, run=run, reward=reward, label=label,
                    artifacts=folder / "artifacts", skills=folder / "skills",
                    category=meta.category)


def _read(path: Path) -> str:
    what = describe(path)
    if what is None:
        raise RunError(f"missing {path.name}")
    try:
        return read_regular(path, MAX_FILE_BYTES).decode("utf-8")
    except NotRegularFileError as exc:
        raise RunError(f"{path.name}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise RunError(f"{path.name} is not UTF-8 text (byte {exc.start})") from exc


def _model[M: BaseModel](model: type[M], data: Any, where: str) -> M:
    try:
        return model.model_validate_json(data) if isinstance(data, str) else \
            model.model_validate(data)
    except ValidationError as exc:
        raise RunError(f"{where}: {problem(exc.errors()[0], '(top level)')} "
                       f"({exc.error_count()} problem(s))") from exc
