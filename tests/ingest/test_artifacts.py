"""Artifact reconstruction from file-writing tool calls."""

from __future__ import annotations

from judge_runner.cases import ArtifactProvenance
from judge_runner.ingest import claude_code
from judge_runner.ingest.artifacts import agent_path, reconstruct
from tests.ingest.helpers import init_event, stream, tool_result, tool_use


def _files(*events: dict[str, object]) -> dict[str, tuple[str | None, list[int], str | None]]:
    run = claude_code.parse(stream(init_event([]), *events))
    return {f.path: (f.content, f.steps, f.note) for f in reconstruct(run)}


def test_write_then_edits_apply_in_order() -> None:
    files = _files(
        tool_use("w", "Write", {"file_path": "/root/a.py", "content": "x = 1\ny = 2\n"}),
        tool_result("w", "ok"),
        tool_use("e", "Edit", {"file_path": "/root/a.py", "old_string": "x = 1",
                               "new_string": "x = 10"}),
        tool_result("e", "ok"),
        tool_use("m", "MultiEdit", {"file_path": "a.py", "edits": [
            {"old_string": "y = 2", "new_string": "y = 20"},
            {"old_string": "x = 10", "new_string": "x = 11"}]}),
        tool_result("m", "ok"),
        tool_use("bad", "Edit", {"file_path": "/root/a.py", "old_string": "x = 11",
                                 "new_string": "BROKEN"}),
        tool_result("bad", "String not found", is_error=True),
    )
    assert files["/root/a.py"] == ("x = 11\ny = 20\n", [0, 1, 2, 3],
                                   "step 3: Edit failed and was not applied")


def test_unknown_content_is_never_guessed() -> None:
    files = _files(
        tool_use("e", "Edit", {"file_path": "/etc/app.conf", "old_string": "a", "new_string": "b"}),
        tool_result("e", "ok"),
        tool_use("b", "Bash", {"command": "python3 gen.py > /root/out.csv 2>/dev/null"}),
        tool_result("b", "", structured={"stdout": ""}),
        tool_use("w", "Write", {"file_path": "/root/late.txt", "content": "never confirmed"}),
    )
    assert files["/etc/app.conf"][0] is None
    assert files["/root/out.csv"] == (None, [1], "step 1: written by a shell command")
    assert files["/root/late.txt"][0] is None  # the call never got a result (run cut off)


def test_edit_of_preexisting_file_uses_the_echoed_original() -> None:
    files = _files(
        tool_use("e", "Edit", {"file_path": "/app/core.py", "old_string": "<", "new_string": "<="}),
        tool_result("e", "ok", structured={"originalFile": "if a < b:\n"}),
    )
    assert files["/app/core.py"][0] == "if a <= b:\n"


def test_heredoc_is_reconstructed_exactly() -> None:
    cmd = "mkdir -p /root/o && cat > /root/o/s.sh << 'EOF'\necho $HOME > x\nEOF"
    files = _files(tool_use("b", "Bash", {"command": cmd}), tool_result("b", ""))
    assert files["/root/o/s.sh"][0] == "echo $HOME > x\n"
    assert "/root/x" not in files  # the '>' inside the heredoc body is not a redirect


def test_paths_are_resolved_lexically_to_absolute_form() -> None:
    assert agent_path("../../etc/passwd", "/root/work") == "/etc/passwd"
    assert agent_path("/a/./b/../c", None) == "/a/c"
    assert agent_path("out.txt", "/root") == "/root/out.txt"
    assert ArtifactProvenance.UNKNOWN.value == "unknown"
