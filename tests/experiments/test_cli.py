"""`judge-runner experiment` end to end over the bundled example trials, the model rows served
by the scripted servers on both wires (Messages and Chat Completions)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from judge_runner.runs import RunStore
from tests.checklist.runs import synthesize
from tests.conftest import EXAMPLES, REPO
from tests.experiments import scripted
from tests.experiments.scripted import (
    EVAL_FLAGS,
    MESSAGES_ROW,
    MODEL_ROWS,
    RULES_ROWS,
    TAIL,
    answer,
    cases_asked,
    checklist_row,
    cli,
    command,
    env,
    header,
    run_json,
    stored,
)
from tests.fakeapi import FakeChatServer, FakeMessagesServer

pytestmark = pytest.mark.slow


def _serve(api: FakeMessagesServer, chat: FakeChatServer, delay_s: float = 0.0) -> None:
    api.responder = lambda r: answer(r, delay_s)
    chat.responder = lambda r: answer(r, delay_s)


def _plan(tmp: Path, text: str) -> Path:
    path = tmp / "plan.toml"
    path.write_text(text)
    return path


def test_rows_equal_eval_and_a_second_run_asks_no_model(
    tmp_path: Path, fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer
) -> None:
    _serve(fake_api, fake_chat_api)
    environ = env(tmp_path, fake_api.base_url, fake_chat_api.base_url)
    plan = _plan(tmp_path, header() + RULES_ROWS + MODEL_ROWS + TAIL)
    estimated = tmp_path / "estimate.json"
    done = cli(["experiment", "estimate", str(plan), "--json", str(estimated)], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    assert not fake_api.requests and not fake_chat_api.requests  # estimating calls no model

    # A row that `eval` finished before (its default run directory, from the same folder) is
    # reused as it is.
    done = cli(["eval", "runs/dataset", *EVAL_FLAGS["rules-v1"], "--no-progress"], tmp_path,
               environ)
    assert done.returncode == 0, done.stderr
    by_eval = done.stdout.split("report: ")[1].strip().removesuffix("/report.html")

    done = cli(["experiment", "run", str(plan), "--no-progress"], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    result = run_json(tmp_path / "runs")
    assert all(not r["not_judged"] and r["cases"] == 12 for r in result["rows"])
    reused = next(r for r in result["rows"] if r["row"] == "rules-v1")
    assert reused["run_dir"] == by_eval and reused["resumed"] == 12 == 12 - reused["judged_now"]
    assert all(r["judged_now"] == 12 for r in result["rows"] if r["row"] != "rules-v1")
    asked = Counter(cases_asked(fake_api.requests) + cases_asked(fake_chat_api.requests))
    # direct on each wire once per case, the panel twice on Messages and once on Chat
    assert asked[(scripted.MESSAGES_MODEL, "?")] == 0
    assert sum(asked.values()) == 12 * (1 + 1 + 3)
    assert max(asked.values()) == 3  # scripted-sonnet: its direct row and two panel members

    # Every row's metrics equal a separate `eval` of the same configuration.
    dataset = tmp_path / "runs" / "dataset"
    urls = {"messages": fake_api.base_url, "chat": fake_chat_api.base_url}
    for row in result["rows"]:
        flags = [f.replace("{messages}", urls["messages"]).replace("{chat}", urls["chat"])
                 for f in EVAL_FLAGS[row["row"]]]
        alone = tmp_path / "alone" / row["row"]
        done = cli(["eval", str(dataset), *flags, "--run-dir", str(alone), "--no-progress"],
                   tmp_path, environ)
        assert done.returncode == 0, (row["row"], done.stderr)
        ours = json.loads((Path(tmp_path / row["run_dir"]) / "metrics.json").read_text())
        theirs = json.loads((alone / "metrics.json").read_text())
        assert ours["config_hash"] == theirs["config_hash"], row["row"]
        assert ours["metrics"] == theirs["metrics"], row["row"]
        assert ours["decisions"] == theirs["decisions"], row["row"]

    # A second run: everything is in the stores, no model is asked anything.
    before = len(fake_api.requests), len(fake_chat_api.requests)
    done = cli(["experiment", "run", str(plan), "--no-progress"], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    assert (len(fake_api.requests), len(fake_chat_api.requests)) == before
    again = run_json(tmp_path / "runs")
    assert all(r["judged_now"] == 0 and r["resumed"] == 12 for r in again["rows"])

    # The estimate against what the scripted servers counted, for the one-call rows.
    est = {r["row"]: r for r in json.loads(estimated.read_text())["rows"]}
    for row in result["rows"]:
        usage = row["usage"]
        prompt = (usage["input_tokens"] + usage["cache_creation_input_tokens"]
                  + usage["cache_read_input_tokens"])
        e = est[row["row"]]
        assert e["input_tokens"]["low"] <= prompt <= e["input_tokens"]["high"], (row, e)
        assert e["output_tokens"]["low"] <= usage["output_tokens"] <= e["output_tokens"]["high"]
        assert e["cost_usd"]["high"] >= usage["cost_usd"]


def test_a_checklist_row_is_estimated_from_the_prompt_its_judge_sends(
    tmp_path: Path, fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer
) -> None:
    synthesize(fake_api, EXAMPLES / "tasks", tmp_path / "checklists")
    _serve(fake_api, fake_chat_api)
    environ = env(tmp_path, fake_api.base_url, fake_chat_api.base_url)
    plan = _plan(tmp_path, header() + checklist_row(tmp_path / "checklists"))
    estimated = tmp_path / "estimate.json"
    asked_before = len(fake_api.requests)
    done = cli(["experiment", "estimate", str(plan), "--json", str(estimated)], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == asked_before  # estimating calls no model
    est = json.loads(estimated.read_text())["rows"][0]
    assert est["row"] == "checklist" and est["todo"] == 12
    assert est["basis"] == "prompts" and "unknown" not in done.stdout, done.stdout
    assert est["input_tokens"]["low"] > 0 and est["cost_usd"]["high"] > 0

    done = cli(["experiment", "run", str(plan), "--no-progress"], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    row = run_json(tmp_path / "runs")["rows"][0]
    usage = row["usage"]
    assert row["judged_now"] == 12 and usage["calls"] == 12  # one request a case, no repair
    prompt = (usage["input_tokens"] + usage["cache_creation_input_tokens"]
              + usage["cache_read_input_tokens"])
    # the stated tolerance: what was sent is 0.8x..1.5x the rendered prompts' size
    assert est["input_tokens"]["low"] <= prompt <= est["input_tokens"]["high"], (prompt, est)
    assert est["output_tokens"]["low"] <= usage["output_tokens"] <= est["output_tokens"]["high"]
    assert est["cost_usd"]["low"] <= usage["cost_usd"] <= est["cost_usd"]["high"]


def test_kill_9_then_rerun_judges_each_case_once(
    tmp_path: Path, fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer
) -> None:
    _serve(fake_api, fake_chat_api, delay_s=0.25)
    environ = env(tmp_path, fake_api.base_url, fake_chat_api.base_url)
    plan = _plan(tmp_path, header(concurrency=3) + MODEL_ROWS)
    done = cli(["experiment", "estimate", str(plan)], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    output = tmp_path / "runs"
    proc = subprocess.Popen(command(["experiment", "run", str(plan), "--no-progress"]),
                            cwd=tmp_path, env=environ, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while stored(output) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    kept = stored(output)
    assert 8 <= kept < 36, kept
    done = cli(["experiment", "run", str(plan), "--no-progress"], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    result = run_json(output)
    assert sum(r["resumed"] for r in result["rows"]) >= kept
    for row in result["rows"]:
        with RunStore.open(tmp_path / row["run_dir"]) as store:
            assert len(store.verdicts()) == 12, row["row"]  # nothing lost
            assert set(store.attempts().values()) == {1}, row["row"]  # nothing stored twice
    # Only the cases in flight at the kill were asked twice.
    asked = Counter(cases_asked(fake_api.requests) + cases_asked(fake_chat_api.requests))
    per_case = {"scripted-sonnet": 3, "scripted-gpt": 2}  # the direct row and the panel
    repeated = sum(n - per_case[model] for (model, _), n in asked.items())
    assert repeated <= 3 * 3  # the plan's concurrency x the panel's calls per case


def test_budget_stops_starting_cases_and_a_larger_one_finishes_them(
    tmp_path: Path, fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer
) -> None:
    _serve(fake_api, fake_chat_api)
    environ = env(tmp_path, fake_api.base_url, fake_chat_api.base_url)
    concurrency, k = 2, 4
    probe = _plan(tmp_path, header(concurrency=concurrency) + MESSAGES_ROW)
    estimated = tmp_path / "estimate.json"
    done = cli(["experiment", "estimate", str(probe), "--json", str(estimated)], tmp_path,
               environ)
    assert done.returncode == 0, done.stderr
    (row_est,) = json.loads(estimated.read_text())["rows"]
    per_case_high = row_est["cost_usd"]["high"] / row_est["todo"]
    budget = round(k * per_case_high, 6)
    done = cli(["experiment", "run", str(probe), "--budget", str(budget), "--no-progress"],
               tmp_path, environ)
    assert done.returncode == 0, done.stderr
    assert "budget reached" in done.stdout and "not judged" in done.stdout
    result = run_json(tmp_path / "runs")
    (row,) = result["rows"]
    judged = row["judged_now"]
    actual_per_case = row["usage"]["cost_usd"] / judged
    covered = int(budget // actual_per_case)  # the cases the budget pays for, at actual cost
    assert 1 <= judged <= covered + concurrency
    assert result["spent_usd"] <= budget  # each started case was estimated at its high end
    assert len(row["not_judged"]) == 12 - judged and result["stopped_by_budget"]
    with RunStore.open(tmp_path / row["run_dir"]) as store:
        verdicts = store.verdicts()
    assert len(verdicts) == judged and not set(row["not_judged"]) & set(verdicts)
    assert all(v.decision.value != "error" for v in verdicts.values())
    assert len(fake_api.requests) == judged

    done = cli(["experiment", "run", str(probe), "--budget", "1000000", "--no-progress"],
               tmp_path, environ)
    assert done.returncode == 0, done.stderr
    (row,) = run_json(tmp_path / "runs")["rows"]
    assert row["judged_now"] == 12 - judged and not row["not_judged"]
    assert len(fake_api.requests) == 12  # nothing judged twice


def test_a_calibrated_row_equals_eval_with_the_same_calibration(
    tmp_path: Path, fake_api: FakeMessagesServer, fake_chat_api: FakeChatServer
) -> None:
    environ = env(tmp_path, fake_api.base_url, fake_chat_api.base_url)
    skill = str(REPO / "judgeskills" / "v2")
    # The rules judge's run over the examples, calibrated loosely so that some threshold passes
    # and the calibrated row both decides and abstains.
    done = cli(["experiment", "estimate", str(_plan(tmp_path, header() + RULES_ROWS))],
               tmp_path, environ)
    assert done.returncode == 0, done.stderr
    dataset = tmp_path / "runs" / "dataset"
    for args in (["eval", str(dataset), "--judge", "rules", "--skill", skill, "--run-dir",
                  str(tmp_path / "dev"), "--no-progress"],
                 ["calibrate", str(tmp_path / "dev"), "--agreement", "0.5", "--delta", "0.5",
                  "--out", str(tmp_path / "cal.json")],
                 ["eval", str(dataset), "--judge", "rules", "--skill", skill, "--calibration",
                  str(tmp_path / "cal.json"), "--run-dir", str(tmp_path / "alone"),
                  "--no-progress"]):
        done = cli(args, tmp_path, environ)
        assert done.returncode == 0, (args[0], done.stderr)
    row = f"""
[[rows]]
name = "rules-calibrated"
title = "Rules v2, calibrated"
judge = "rules"
skill = "{skill}"
calibration = "{tmp_path / 'cal.json'}"
"""
    plan = tmp_path / "calibrated.toml"
    plan.write_text(header(name="calibrated") + row)
    done = cli(["experiment", "run", str(plan), "--no-progress"], tmp_path, environ)
    assert done.returncode == 0, done.stderr
    result = run_json(tmp_path / "runs", plan="calibrated")
    ours = json.loads((tmp_path / result["rows"][0]["run_dir"] / "metrics.json").read_text())
    theirs = json.loads((tmp_path / "alone" / "metrics.json").read_text())
    assert ours["config_hash"] == theirs["config_hash"]
    assert ours["decisions"] == theirs["decisions"]
    assert ours["metrics"] == theirs["metrics"]
    assert ours["guarantee"] == theirs["guarantee"] is not None
    assert not fake_api.requests and not fake_chat_api.requests
