"""Judges driven by a real model: Qwen2.5-Coder-0.5B served by llama.cpp on 127.0.0.1, through
the CLI, over both wires (Messages and Chat Completions). The model's quality is not the point
(it is poor); the point is that real model behaviour is parsed, executed, bounded, accounted
for exactly and replayable. Each case is bounded (few turns, capped output) so that a stuck
model ends as a specific error, never a hang."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge_runner.cases import Dataset
from judge_runner.models.recording import TRANSCRIPT, read_transcript
from tests.conftest import REPO, docker_available, require
from tests.local_model.conftest import MODEL, LocalModel, case_of_task, split_file

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

CLI_TIMEOUT_S = 1200  # a hang guard only; the budgets below end each case much sooner
# Errors a misbehaving model may cause, each with its own diagnosis. "model call failed" is
# not among them: a timeout at the client limit is what must not happen.
SPECIFIC_ERRORS = ("budget exhausted:", "stalled:", "unparseable output:",
                   "context budget exhausted:", "prompt too large:", "no member decided")
DEAD_URL = "http://127.0.0.1:9"  # nothing listens: a replay must not need the server
AGENT_KNOBS = ["max_turns=5", "max_output_tokens=256", "max_context_tokens=15000",
               "max_wall_s=300", "timeout_s=200"]
# A four-step skill that fits the small model (judgeskills/v1 with its references is a 6.4k-token
# prompt, 1-2 min of prompt processing on 2 cores before the first answer).
BRIEF_SKILL = Path(__file__).parent / "brief-skill"
DIRECT_KNOBS = ["max_prompt_tokens=2500", "max_output_tokens=200", "timeout_s=300"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "judge_runner.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=CLI_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def records(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "verdicts.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def assert_verdict_or_specific_error(record: dict[str, Any]) -> None:
    decision, error = record["decision"], record["verdict"].get("error")
    assert decision in ("pass", "fail", "error"), record
    if decision == "error":
        assert error and error.startswith(SPECIFIC_ERRORS), error


def transcripts(run_dir: Path) -> list[Path]:
    return sorted(run_dir.rglob(TRANSCRIPT))


def assert_usage_is_the_servers(run_dir: Path, before: dict[str, float],
                                after: dict[str, float]) -> None:
    """Summed recorded usage equals what the server itself counted over the run."""
    entries = [e for path in transcripts(run_dir) for e in read_transcript(path)[0]]
    answered = [e for e in entries if e.response is not None]
    assert answered, "no model call was answered"
    output = sum(e.response.usage.output_tokens for e in answered if e.response)
    uncached = sum(e.response.usage.input_tokens for e in answered if e.response)
    assert output == after["tokens_predicted_total"] - before["tokens_predicted_total"]
    assert uncached == after["prompt_tokens_total"] - before["prompt_tokens_total"]
    assert all(e.response.usage.cache_creation_input_tokens == 0 for e in answered if e.response)


def replay_matches(dataset: Dataset, run_dir: Path, tmp_path: Path, *args: str) -> None:
    again = tmp_path / "replayed"
    cli("eval", str(dataset.root), *args, "--base-url", DEAD_URL, "--replay", str(run_dir),
        "--run-dir", str(again), "--no-progress")
    first, second = records(run_dir), records(again)
    assert [(r["case_id"], r["decision"], r["verdict"].get("error")) for r in second] == \
        [(r["case_id"], r["decision"], r["verdict"].get("error")) for r in first]


def test_agent_judge_case_end_to_end_on_the_local_model(
    local_model: LocalModel, example_dataset: Dataset, tmp_path: Path
) -> None:
    case_id = case_of_task(example_dataset, "ssh-bruteforce-triage")
    split = split_file(tmp_path, case_id)
    require(docker_available(), "the agent judge's sandbox needs a Docker engine")
    sandbox = "docker"
    args = ["--judge", "agent", "--skill", str(BRIEF_SKILL), "--split",
            str(split), "--model", f"anthropic:{MODEL}", "--sandbox", sandbox, "-c", "1",
            *[x for knob in AGENT_KNOBS for x in ("-o", knob)]]
    run = tmp_path / "run"
    before = local_model.counters()
    cli("eval", str(example_dataset.root), *args, "--base-url", local_model.base_url,
        "--run-dir", str(run), "--no-progress")
    after = local_model.counters()

    (record,) = records(run)
    assert_verdict_or_specific_error(record)
    details = record["verdict"]["details"]
    assert 1 <= details["turns"] <= 5
    assert details["sandbox"]["kind"] == sandbox
    # the model's own tool calls were parsed into tool_use blocks and executed
    entries, problems = read_transcript(run / "cases" / case_id / TRANSCRIPT)
    assert not problems
    uses = [b for e in entries if e.response for b in e.response.content
            if b.get("type") == "tool_use"]
    assert uses, "the model made no tool call the server could parse"
    known = {"bash", "read_file", "write_plan", "record_inspection", "submit_verdict"}
    assert {u["name"] for u in uses} <= known
    assert sum(details["tool_calls"].values()) == len(uses)
    # at least one command ran in the sandbox, and its real output went back to the model,
    # opening with its call id (the last answer's results are sent to no one: the session ended)
    commands = [u for u in uses if u["name"] == "bash"]
    assert commands, f"the model ran no command: {[u['name'] for u in uses]}"
    results = {b["tool_use_id"]: b["content"] for e in entries for m in e.request.messages[-1:]
               if isinstance(m.get("content"), list) for b in m["content"]
               if b.get("type") == "tool_result"}
    ran = [c for c in commands if c["id"] in results]
    assert ran, "no command result reached the model"
    for call in ran:  # the call id line is ours; the command's output comes back fenced
        head, fenced = results[call["id"]].split("\n", 1)
        assert head == f"call id: {call['id']}"
        assert re.match(r"<<<agent-text [0-9a-f]{16}: what this bash call printed\nexit code ",
                        fenced), fenced[:200]
    assert_usage_is_the_servers(run, before, after)
    replay_matches(example_dataset, run, tmp_path, *args)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_direct_judge_case_over_each_wire(
    local_model: LocalModel, example_dataset: Dataset, tmp_path: Path, wire: str
) -> None:
    case_id = case_of_task(example_dataset, "interval-merge-bugfix")
    args = ["--judge", "direct", "--split", str(split_file(tmp_path, case_id)), "--model",
            f"{wire}:{MODEL}", "-c", "1", *[x for knob in DIRECT_KNOBS for x in ("-o", knob)]]
    run = tmp_path / "run"
    before = local_model.counters()
    cli("eval", str(example_dataset.root), *args, "--base-url", local_model.base_url,
        "--run-dir", str(run), "--no-progress")
    after = local_model.counters()

    (record,) = records(run)
    assert_verdict_or_specific_error(record)
    (path,) = transcripts(run)
    entries, _ = read_transcript(path)
    assert entries and all(e.response is not None for e in entries)
    assert len(entries) <= 2  # the answer, and at most one repair turn
    # The model's call was parsed into a tool_use block, by the server, on the first answer or
    # after the repair turn (the 0.5B model sometimes writes `submit_verdict(pass, "…")` first).
    calls = [b for e in entries if e.response for b in e.response.content
             if b.get("type") == "tool_use"]
    assert [c["name"] for c in calls] == ["submit_verdict"], [e.response for e in entries]
    if record["decision"] != "error":
        assert calls[0]["input"]["decision"] == record["decision"]
    assert_usage_is_the_servers(run, before, after)
    replay_matches(example_dataset, run, tmp_path, *args)


def test_a_panel_over_both_wires_runs_and_votes(
    local_model: LocalModel, example_dataset: Dataset, tmp_path: Path
) -> None:
    case_id = case_of_task(example_dataset, "interval-merge-bugfix")
    run = tmp_path / "run"
    args = ["--judge", "multi", "--split", str(split_file(tmp_path, case_id)), "--models",
            f"anthropic:{MODEL},openai:{MODEL}", "-c", "1",
            *[x for knob in DIRECT_KNOBS for x in ("-o", knob)]]
    before = local_model.counters()
    cli("eval", str(example_dataset.root), *args, "--base-url", local_model.base_url,
        "--run-dir", str(run), "--no-progress")
    after = local_model.counters()
    (record,) = records(run)
    assert_verdict_or_specific_error(record)
    votes = record["verdict"]["details"]["votes"]
    assert [v["model"] for v in votes] == [f"anthropic:{MODEL}", f"openai:{MODEL}"]
    decided = [v for v in votes if v["decision"] in ("pass", "fail")]
    assert decided, votes  # at least one member voted
    assert len(transcripts(run)) == 2
    assert_usage_is_the_servers(run, before, after)
    replay_matches(example_dataset, run, tmp_path, *args)
