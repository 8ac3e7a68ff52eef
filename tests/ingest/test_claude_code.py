"""Claude Code stream-json parsing, including the quirks of real transcripts."""

from __future__ import annotations

import json

import pytest

from judge_runner.cases import TerminationStatus
from judge_runner.ingest import claude_code
from judge_runner.ingest.raw import RawKind, TranscriptError
from tests.ingest.helpers import init_event, result, stream, text, tool_result, tool_use


def test_calls_results_skills_and_final_message() -> None:
    raw = stream(
        init_event(["pdf", "pdf", "xlsx"]),
        tool_use("t1", "Skill", {"skill": "pdf"}),
        tool_result("t1", "Launching skill: pdf", structured={"success": True}),
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "Base directory for this skill: /root/.claude/skills/pdf\n\n"
                                     "# PDF\nUse pypdf."}]}},
        tool_use("t2", "Bash", {"command": "python3 x.py"}),
        tool_result("t2", "Exit code 2\nTraceback ...\nKeyError: 'a'", is_error=True,
                    structured="Error: Exit code 2"),
        tool_use("t3", "Bash", {"command": "ls"}),
        tool_result("t3", "x.py", structured={"stdout": "x.py", "stderr": ""}),
        result("done"),
        {"type": "system", "subtype": "task_notification", "summary": "Background command done"},
    )
    run = claude_code.parse(raw)
    assert run.skills == ["pdf", "xlsx"]  # duplicates from the init list collapse
    kinds = [s.kind for s in run.steps]
    assert kinds == [RawKind.SKILL, RawKind.TOOL, RawKind.TOOL, RawKind.NOTICE]
    skill, failed, ok, notice = run.steps
    assert skill.skill == "pdf" and skill.text == "# PDF\nUse pypdf."
    assert failed.is_error and failed.exit_code == 2
    assert ok.exit_code == 0 and not ok.is_error
    assert "Background command done" in (notice.text or "")
    assert run.status is TerminationStatus.COMPLETED
    assert run.final_message == "done" and run.num_turns == 3


def test_garbled_and_non_json_lines_are_survived_and_reported() -> None:
    good = stream(init_event([]), text("hello"))
    raw = good + '{"type": "assistant", "message": {"content": [{"type": "te\n' + \
        "WARNING: bash pre-flight check is slow\n" + stream(text("still here"))
    run = claude_code.parse(raw)
    assert [s.text for s in run.steps] == [
        "hello", "non-JSON transcript line: WARNING: bash pre-flight check is slow", "still here"]
    assert len(run.warnings) == 1 and run.warnings[0].startswith("line 3: truncated or malformed")


def test_stream_without_result_event_is_no_result() -> None:
    run = claude_code.parse(stream(init_event([]), tool_use("t1", "Bash", {"command": "sleep 9"})))
    assert run.status is TerminationStatus.NO_RESULT
    assert run.steps[0].has_result is False and run.final_message is None


def test_result_for_unknown_call_becomes_a_notice() -> None:
    run = claude_code.parse(stream(init_event([]), tool_result("ghost", "out", is_error=True)))
    assert run.steps[0].kind is RawKind.NOTICE and run.steps[0].is_error


@pytest.mark.parametrize("content", [
    "just some text\nno events here\n",
    '{"role": "user", "content": "an OpenAI-style message"}\n',
    "",
])
def test_unknown_format_raises(content: str) -> None:
    with pytest.raises(TranscriptError, match="no Claude Code stream-json event"):
        claude_code.parse(content)


def test_lines_split_on_newline_only() -> None:
    """A JSON string may hold U+2028 or a form feed raw; the event stays one line."""
    message = "first\u2028second\u0085third\u2029fourth"
    raw = stream(init_event([]), json.dumps(text(message), ensure_ascii=False), result("ok"))
    assert "\u2028" in raw  # written raw, as a JSON writer may
    run = claude_code.parse(raw)
    assert [s.text for s in run.steps] == [message]
    assert run.warnings == []
    assert run.raw_chars == len(raw)


def test_a_stream_is_parsed_one_line_at_a_time() -> None:
    """`parse_lines` takes any iterable of lines; the harness's structured copy of a result is
    kept only for edits (their base text), never as a second copy of every output."""
    lines = iter(stream(
        init_event([]),
        tool_use("b", "Bash", {"command": "cat log"}),
        tool_result("b", "x" * 1000, structured={"stdout": "x" * 1000}),
        tool_use("e", "Edit", {"file_path": "/a", "old_string": "1", "new_string": "2"}),
        tool_result("e", "ok", structured={"originalFile": "1\n"}),
        result("ok")).splitlines(keepends=True))
    run = claude_code.parse_lines(lines)
    bash, edit = run.steps
    assert bash.output == "x" * 1000 and bash.exit_code == 0 and bash.structured_result is None
    assert edit.structured_result == {"originalFile": "1\n"}
