"""ATIF trajectory.json parsing."""

from __future__ import annotations

import json

import pytest

from judge_runner.cases import TerminationStatus
from judge_runner.ingest import atif
from judge_runner.ingest.raw import RawKind, TranscriptError


def _doc() -> dict[str, object]:
    return {
        "schema_version": "ATIF-v1.4", "session_id": "s1",
        "agent": {"name": "terminus", "version": "2.0", "model_name": "m1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "Solve the task."},
            {"step_id": 2, "source": "agent", "message": "Running it.",
             "tool_calls": [{"tool_call_id": "c1", "function_name": "bash",
                             "arguments": {"command": "python3 run.py"}}],
             "observation": {"results": [{"source_call_id": "c1",
                                          "content": "Traceback (most recent call last):\n..."}]}},
            {"step_id": 3, "source": "agent", "message": "Finished."},
        ],
    }


def test_atif_steps_map_to_raw_steps() -> None:
    run = atif.parse(json.dumps(_doc()))
    assert run.agent == "terminus 2.0" and run.model == "m1" and run.skills is None
    assert [s.kind for s in run.steps] == [RawKind.TEXT, RawKind.TOOL, RawKind.TEXT]
    call = run.steps[1]
    assert call.tool == "bash" and call.has_result and call.is_error
    assert run.final_message == "Finished."
    assert run.status is TerminationStatus.COMPLETED


def test_a_run_cut_off_during_a_tool_call_did_not_complete() -> None:
    """The last step is an agent step, but its tool call never got an observation: the run
    stopped while the tool ran, so it is not marked completed."""
    doc = _doc()
    steps = doc["steps"]
    assert isinstance(steps, list)
    steps[-1] = {"step_id": 3, "source": "agent", "message": "One more check.",
                 "tool_calls": [{"tool_call_id": "c2", "function_name": "bash",
                                 "arguments": {"command": "pytest"}}]}
    assert atif.parse(json.dumps(doc)).status is TerminationStatus.NO_RESULT
    steps[-1]["observation"] = {"results": [{"source_call_id": "c2", "content": "1 passed"}]}
    assert atif.parse(json.dumps(doc)).status is TerminationStatus.COMPLETED


@pytest.mark.parametrize("content", ["not json", json.dumps({"steps": []}),
                                     json.dumps({"schema_version": "ATIF-v1.4", "steps": 3})])
def test_non_atif_documents_raise(content: str) -> None:
    with pytest.raises(TranscriptError):
        atif.parse(content)
