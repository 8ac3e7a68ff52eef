"""terminus-2 episode lists: the variants a harness run can leave behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge_runner.cases import Dataset, TerminationStatus
from judge_runner.ingest import ImportOptions, TrialStatus, import_trials
from judge_runner.ingest.agent_log import parse
from judge_runner.ingest.artifacts import reconstruct
from judge_runner.ingest.raw import RawKind, TranscriptError
from tests.ingest.helpers import make_task, make_trial

SYSTEM = ("You are an AI assistant tasked with solving command-line tasks.\n---\nSKILL SYSTEM:\n"
          "available_skills:\n[\n  {\"name\": \"alpha\", \"description\": \"a [b] c\", "
          "\"location\": \"/root/.claude/skills/alpha\"},\n  {\"name\": \"beta\"}\n]\n"
          "LOADED SKILLS:\nNo skills loaded.\n---\nTask Description:\nDo it.\n\n"
          "Current terminal state:\nCurrent Terminal Screen:\nroot@x:/app# ")


def answer(analysis: str, *keys: str, done: bool = False) -> str:
    body: dict[str, Any] = {"analysis": analysis, "plan": "p",
                            "commands": [{"keystrokes": k, "duration": 0.1} for k in keys]}
    if done:
        body["task_complete"] = True
    return json.dumps(body)


def episodes(*turns: tuple[str, str]) -> str:
    return json.dumps([{"episode": i, "prompt": p, "response": r}
                       for i, (p, r) in enumerate(turns)])


def test_batches_skills_errors_and_the_final_message() -> None:
    run = parse(episodes(
        (SYSTEM, '{"load_skill": "alpha"}'),
        ("Loaded skill: alpha\n---\n---\nname: alpha\n---\nbody", answer(
            "start", "cat > /app/a.txt << 'EOF'\nhello\nEOF\n", "python3 x.py\n")),
        ("New Terminal Output:\nTraceback (most recent call last):\nboom", "not json {"),
        ("Previous response had parsing errors:\nInvalid JSON: x\n\nPlease fix",
         answer("fixed", "ls\n", done=True)),
    ))
    kinds = [s.kind for s in run.steps]
    assert kinds == [RawKind.SKILL, RawKind.TEXT, RawKind.TOOL, RawKind.TEXT, RawKind.NOTICE,
                     RawKind.TEXT, RawKind.TOOL]
    skill, _, batch, rejected, notice, final_text, last = run.steps
    assert (skill.skill, skill.text, skill.is_error) == ("alpha", "---\nname: alpha\n---\nbody",
                                                         False)
    assert batch.arguments == {"command": "cat > /app/a.txt << 'EOF'\nhello\nEOF\npython3 x.py\n"}
    assert batch.output is not None and batch.output.startswith("Traceback") and batch.is_error
    assert rejected.text == "not json {"
    assert notice.is_error and "Invalid JSON" in (notice.output or "")
    assert run.skills == ["alpha", "beta"]
    assert run.final_message == final_text.text == "fixed\n\nplan: p"
    assert run.status is TerminationStatus.COMPLETED and run.result_subtype == "task_complete"
    assert last.has_result and last.output is None  # ran, output never logged
    files = {f.path: f for f in reconstruct(run)}
    assert files["/app/a.txt"].content == "hello\n"  # the batch's traceback is another command's


def test_a_response_the_harness_rejected_runs_no_commands() -> None:
    run = parse(episodes(
        (SYSTEM, answer("a", "rm -rf /tmp/x\n") + "\n\\d bad escape"),
        ("Previous response had parsing errors:\nInvalid \\escape", answer("b", "ls\n")),
    ))
    tools = [s for s in run.steps if s.kind is RawKind.TOOL]
    assert [t.arguments for t in tools] == [{"command": "ls\n"}]
    assert run.status is TerminationStatus.NO_RESULT and run.final_message == "b\n\nplan: p"


def test_warnings_confirmation_unknown_prompts_and_missing_skills() -> None:
    run = parse(episodes(
        ("plain system prompt without a skill block", '{"load_skill": "ghost"}'),
        ("Skill 'ghost' not found", "Sure: " + answer("x", "vim notes.txt\n") + " thanks"),
        ("Previous response had warnings:\nWARNINGS: - Extra text detected\n\n"
         "New Terminal Output:\nok\n", answer("y", "echo hi > /app/o.txt\n", done=True)),
        ("Current terminal state:\nNew Terminal Output:\nhi\n\nAre you sure you want to mark "
         "the task as complete? This will trigger grading.", answer("z", done=True)),
        ("You are picking up work from a previous agent. Summary: ...", answer("w")),
    ))
    assert run.skills is None  # no skill block: the skill rule decides
    ghost = run.steps[0]
    assert ghost.kind is RawKind.SKILL and ghost.is_error and "not found" in (ghost.output or "")
    notices = [s.text or "" for s in run.steps if s.kind is RawKind.NOTICE]
    assert any(n.startswith("Previous response had warnings") for n in notices)
    assert any("confirm that the task is complete" in n for n in notices)
    assert any(n.startswith("harness prompt: You are picking up work") for n in notices)
    vim = next(s for s in run.steps if s.arguments == {"command": "vim notes.txt\n"})
    assert vim.output == "ok\n"
    assert any("vim" in n for n in run.notes)
    files = {f.path: f for f in reconstruct(run)}
    assert files["/app/o.txt"].content is None  # a redirect: written, content unknown


@pytest.mark.parametrize("text", ["[]", "[1, 2]", '[{"prompt": "x"}]'])
def test_a_list_that_is_not_an_episode_list_is_refused(text: str) -> None:
    with pytest.raises(TranscriptError, match="terminus-2"):
        parse(text)


def test_harbors_own_atif_of_terminus_2_reads_like_the_episode_list() -> None:
    """Harbor's terminus-2 can also write ATIF: one `bash_command` call per keystroke entry and
    one terminal output for the batch, naming no call."""
    calls = [{"tool_call_id": "call_1_1", "function_name": "bash_command",
              "arguments": {"keystrokes": "cat > /app/a.txt << 'EOF'\nhi\nEOF\n", "duration": 0.1}},
             {"tool_call_id": "call_1_2", "function_name": "bash_command",
              "arguments": {"keystrokes": "python3 a.py\n", "duration": 1.0}}]
    doc = {"schema_version": "ATIF-v1.5", "agent": {"name": "terminus-2", "version": "2.0.0"},
           "steps": [{"step_id": 1, "source": "user", "message": "system prompt and task"},
                     {"step_id": 2, "source": "agent", "message": "analysis", "tool_calls": calls,
                      "observation": {"results": [{"content": "New Terminal Output:\nok"}]}},
                     {"step_id": 3, "source": "agent", "message": "done", "tool_calls": [
                         {"tool_call_id": "call_2_task_complete",
                          "function_name": "mark_task_complete", "arguments": {}}],
                      "observation": {"results": [{"content": "confirm?"}]}}]}
    run = parse(json.dumps(doc))
    tools = [s for s in run.steps if s.kind is RawKind.TOOL]
    assert [t.arguments for t in tools[:2]] == [
        {"command": "cat > /app/a.txt << 'EOF'\nhi\nEOF\n", "duration": 0.1},
        {"command": "python3 a.py\n", "duration": 1.0}]
    assert all(t.has_result for t in tools) and tools[1].output == "New Terminal Output:\nok"
    assert tools[2].tool == "mark_task_complete" and tools[2].output == "confirm?"
    assert not any(s.kind is RawKind.NOTICE for s in run.steps)
    assert {f.path: f.content for f in reconstruct(run)} == {"/app/a.txt": "hi\n"}


def test_per_turn_episode_folders_import_like_the_episode_list(tmp_path: Path) -> None:
    turns = [(SYSTEM, '{"load_skill": "alpha"}'),
             ("Loaded skill: alpha\n---\nbody", answer("go", "ls\n", done=True))]
    make_task(tmp_path / "tasks", "demo-task", skills=("alpha", "beta"))
    listed = make_trial(tmp_path / "trials", "listed", None)
    (listed / "agent" / "trajectory.json").write_text(episodes(*turns))
    folders = make_trial(tmp_path / "trials", "folders", None)
    for n, (prompt, response) in enumerate(turns):
        turn = folders / "agent" / f"episode-{n}"
        turn.mkdir()
        (turn / "prompt.txt").write_text(prompt)
        (turn / "response.txt").write_text(response)
    report = import_trials([tmp_path / "trials"], tmp_path / "ds",
                           ImportOptions(task_dirs=[tmp_path / "tasks"]))
    assert [t.status for t in report.trials] == [TrialStatus.IMPORTED] * 2
    a, b = (c.trajectory for c in Dataset(tmp_path / "ds").cases())
    assert a.steps == b.steps and a.final_message == b.final_message
