"""The ATIF trajectory built from an agent judge transcript."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from judge_runner.harbor.atif import build_trajectory, read_calls
from judge_runner.models import ModelRequest, ModelResponse, TranscriptEntry, Usage
from tests.conftest import require

SYSTEM = [{"type": "text", "text": "You judge runs.", "cache_control": {"type": "ephemeral"}}]
CALL = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls /case"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "case.json"}


def _entry(seq: int, messages: list[dict[str, Any]], content: list[dict[str, Any]],
           usage: Usage, error: str | None = None) -> str:
    request = ModelRequest(model="m1", system=SYSTEM, messages=messages, tools=[])
    response = None if error else ModelResponse(id=f"msg_{seq}", content=content,
                                                stop_reason="end_turn", usage=usage)
    return TranscriptEntry(seq=seq, key=str(seq), request=request, response=response,
                           error=error).model_dump_json()


def test_conversation_tokens_and_tool_results_map_to_atif(tmp_path: Path) -> None:
    first: list[dict[str, Any]] = [{"role": "user", "content": "# Case c1"}]
    plain: list[dict[str, Any]] = [{"type": "text", "text": "Thinking aloud."}]
    second: list[dict[str, Any]] = [*first, {"role": "assistant", "content": plain},
              {"role": "user", "content": "Use your tools."}]
    third: list[dict[str, Any]] = [*second, {"role": "assistant", "content": [CALL]},
             {"role": "user", "content": [RESULT]}]
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("\n".join([
        '{"kind": "judge_event", "event": "start"}',
        _entry(0, first, plain, Usage(input_tokens=10, cache_creation_input_tokens=100,
                                      output_tokens=5, cost_usd=0.5, calls=1)),
        _entry(1, second, [CALL], Usage(input_tokens=20, cache_read_input_tokens=100,
                                        output_tokens=7, cost_usd=0.25, calls=1)),
        _entry(2, third, [], Usage(), error="model call failed"),
        _entry(3, third, [{"type": "text", "text": "Done."}],
               Usage(input_tokens=30, cache_read_input_tokens=100, output_tokens=3, calls=1)),
    ]) + "\n")
    calls = read_calls(transcript)
    assert [c.seq for c in calls] == [0, 1, 3]  # the failed call has no answer to show
    data = build_trajectory(calls, "judge-runner", "0.1.0", "s1")
    assert data is not None
    steps = data["steps"]
    assert [(s["step_id"], s["source"]) for s in steps] == [
        (1, "system"), (2, "user"), (3, "agent"), (4, "user"), (5, "agent"), (6, "agent")]
    assert steps[0]["message"] == "You judge runs."
    assert steps[3]["message"] == "Use your tools."
    assert steps[4]["tool_calls"][0]["function_name"] == "bash"
    assert steps[4]["observation"] == {"results": [{"source_call_id": "toolu_1",
                                                    "content": "case.json"}]}
    assert steps[2]["metrics"] == {"prompt_tokens": 110, "completion_tokens": 5,
                                   "cached_tokens": 0, "cost_usd": 0.5}
    assert data["final_metrics"] == {"total_prompt_tokens": 360, "total_completion_tokens": 15,
                                     "total_cached_tokens": 200, "total_cost_usd": 0.75,
                                     "total_steps": 6}
    require(importlib.util.find_spec("harbor") is not None, "harbor not installed")
    from harbor.models.trajectories import Trajectory

    Trajectory.model_validate(data)


def test_no_answered_call_means_no_trajectory(tmp_path: Path) -> None:
    assert read_calls(tmp_path / "missing.jsonl") == []
    assert build_trajectory([], "judge-runner", "0.1.0", None) is None
