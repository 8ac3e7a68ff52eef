"""End to end through the real CLI and the anthropic SDK against the fake Messages API server:
synth (with a gate repair turn) -> validate -> `eval --judge checklist` -> analyze (with
perturbation), then the same judging offline for the mechanical items, replay with the server
stopped, and a run killed with SIGKILL and resumed. Expected numbers are worked out in the
comments; `golden/pipeline` holds what the earlier standalone pipeline wrote for these inputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge_runner.checklist.metrics import read_details
from judge_runner.checklist.models import read_checklist, write_checklist
from judge_runner.checklist.synth import SynthPayload, to_checklist
from judge_runner.checklist.tasks import load_task
from judge_runner.cli import app
from judge_runner.jsonl import read_dicts
from judge_runner.runs import load_records
from tests.checklist.helpers import EVIDENCE_MARKER, TASK, trace_texts, write_runs, write_task
from tests.checklist.runs import assert_reproduces, eval_checklist, invoke, scores_jsonl
from tests.fakeapi.server import (
    FakeMessagesServer,
    HttpError,
    ReceivedRequest,
    Scripted,
    tool_use,
)
from tests.fakeapi.server import reply as api_reply

SOLUTION_MARKER = "REFERENCE-SOLUTION-91c2"
runner = CliRunner()


def synth_items(days_quote: str) -> list[dict[str, Any]]:
    return [
        {"requirement": "The summary JSON file is written to /root/out/summary.json",
         "quote": "Write the summary to `/root/out/summary.json`",
         "verifier_ref": "test_summary_exists", "route": "assertion",
         "check": {"kind": "artifact_exists", "path": "/root/out/summary.json"}},
        {"requirement": "mean_temp in summary.json equals the expected daily mean 21.5",
         "quote": "The value of `mean_temp` must be rounded to two decimals.",
         "verifier_ref": "TestValues::test_mean_temp", "route": "assertion",
         "check": {"kind": "json_value", "path": "/root/out/summary.json",
                   "pointer": "/mean_temp", "value": 21.5, "tolerance": 0.01}},
        {"requirement": "summary.json gives the number of days in the readings as days",
         "quote": days_quote, "verifier_ref": "TestValues::test_days", "route": "assertion"},
        {"requirement": "The CSV copy at /root/out/summary.csv has the columns day and temp",
         "quote": "Also write a CSV copy to `/root/out/summary.csv` with the columns",
         "route": "generated",
         "check": {"kind": "csv_columns", "path": "/root/out/summary.csv",
                   "columns": ["day", "temp"]}},
        {"requirement": "Every file and value the final report claims has a matching trace entry",
         "route": "judge", "kind": "claim_trace"},
    ]


def judge_responder(request: ReceivedRequest) -> Scripted:
    """A judge that reads the log it is given: C03 from summary.json, C05 from the trace."""
    body = request.body
    if [t["name"] for t in body.get("tools", [])] != ["record_judgments"]:
        return HttpError(status=400, message="unexpected request")
    text = body["messages"][0]["content"][0]["text"]
    out = []
    for item_id in re.findall(r"^- (C\d+) \(", text, re.M):
        if item_id == "C03":
            m = re.search(r'"days": (\d+)', text)
            assert m is not None
            out.append({"item_id": "C03", "label": "yes" if m.group(1) == "3" else "no",
                        "reason": "days in summary.json",
                        "evidence": [{"kind": "artifact", "ref": "/root/out/summary.json",
                                      "quote": m.group(0)}]})
        elif item_id == "C05":
            wrote = re.search(r"\[step (\d+)\][^\[]*?(wrote \d+ rows)", text)
            crash = re.search(r"\[step (\d+)\][^\[]*?(KeyError: 'temp')", text)
            hit = wrote or crash
            assert hit is not None
            out.append({"item_id": "C05", "label": "yes" if wrote else "no",
                        "reason": "claimed write vs trace",
                        "evidence": [{"kind": "step", "ref": hit.group(1),
                                      "quote": hit.group(2)}]})
    return api_reply(tool_use("record_judgments", {"judgments": out}))


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path]:
    tasks = tmp_path / "tasks"
    task = write_task(tasks, TASK)
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text(f"echo {SOLUTION_MARKER}\n", encoding="utf-8")
    return tasks, write_runs(tmp_path / "data")


def test_end_to_end_through_sdk(fake_api: FakeMessagesServer, setup: tuple[Path, Path],
                                tmp_path: Path) -> None:
    tasks, dataset = setup
    url = fake_api.base_url
    checklists, scores = tmp_path / "checklists", tmp_path / "run"

    # synth: the first submission misquotes the instruction; the gate failure goes back as a
    # tool error and the second submission passes.
    bad, good = "with keys days and mean_temp", "with the keys `days` and `mean_temp`"
    fake_api.push(api_reply(tool_use("submit_checklist", {"items": synth_items(bad)})),
                  api_reply(tool_use("submit_checklist", {"items": synth_items(good)})))
    invoke("checklist", "synth", str(tasks / TASK), "--out", str(checklists), "--model", "m-syn",
           "--base-url", url)
    synth_bodies = list(fake_api.bodies)
    assert len(synth_bodies) == 2
    repair = synth_bodies[1]["messages"][-1]["content"][0]
    assert repair["type"] == "tool_result" and repair["is_error"] is True
    assert "[quote] item C03" in repair["content"]
    checklist = read_checklist(checklists / f"{TASK}.json")
    assert [i.id for i in checklist.items] == ["C01", "C02", "C03", "C04", "C05"]
    assert checklist.provenance.model == "m-syn"

    # isolation: nothing from runs, outcomes or solutions in any synthesizer request
    synth_text = "\n".join(json.dumps(b) for b in synth_bodies)
    for forbidden in [*trace_texts(), EVIDENCE_MARKER, SOLUTION_MARKER, "reward", "a-without"]:
        assert forbidden not in synth_text, forbidden
    assert "test_outputs.py::TestValues::test_days" in synth_text  # the verifier was given

    invoke("checklist", "validate", str(checklists), "--tasks", str(tasks))

    # judge: C01, C02, C04 by code; C03 and C05 by the model, one request per case
    fake_api.responder = judge_responder
    eval_checklist(dataset, checklists, scores, "--model", "m-judge", "--base-url", url,
                   "--concurrency", "2")
    score_bodies = fake_api.bodies[2:]
    assert len(score_bodies) == 4
    score_text = "\n".join(json.dumps(b) for b in score_bodies)
    assert EVIDENCE_MARKER not in score_text
    # (the tool schema names the judgment's own "label" field; the prose the judge reads must
    # not mention outcomes at all)
    prose = "\n".join(json.dumps([b["system"], b["messages"]]) for b in score_bodies)
    assert not re.search(r"\b(pass|passed|fail|failed|reward|label)\b", prose, re.I)
    assert "test_mean_temp" not in score_text and "test_days" not in score_text
    for body in score_bodies:  # mechanical items never go to the model
        items = re.findall(r"^- (C\d+) \(", body["messages"][0]["content"][0]["text"], re.M)
        assert items == ["C03", "C05"]

    rows = {r["case_id"]: r for r in map(json.loads, scores_jsonl(scores).splitlines())}
    # a, b: all five Yes. c (FAIL): C01 Yes; C02, C03, C05 No; C04 Abstain (its CSV is not
    # among the recovered artifacts, which is missing evidence, not a No) + endpoint No
    # -> 1/5, raw 1/4, coverage 4/5.
    # d (FAIL): C02 No (22.0), others Yes + endpoint -> 4/6, gated 1/6, stops at C02.
    assert rows["a-without"]["partial_credit"] == 1.0
    assert rows["c-without"]["partial_credit"] == pytest.approx(1 / 5)
    assert rows["c-without"]["raw_credit"] == pytest.approx(1 / 4)
    assert rows["c-without"]["coverage"] == pytest.approx(4 / 5)
    assert rows["d-with"]["partial_credit"] == pytest.approx(4 / 6)
    assert rows["d-with"]["gated_credit"] == pytest.approx(1 / 6)
    assert rows["d-with"]["stopped_at"] == "C02"
    assert rows["d-with"]["coverage"] == 1.0

    # analyze with the perturbation check. Perturbable Yes judgments (cited quote with a number):
    # a, b: C02 code 21.5->24.3 (No), C03 model days 3->4 (No), C05 model "wrote 3 rows"->4 (Yes)
    # d: C03 (No), C05 (Yes). 8 in all: 5 turn No; code 2/2, model 3/6.
    invoke("checklist", "analyze", str(scores), "--perturb", "--checklists", str(checklists),
           "--base-url", url)
    perturb = read_dicts(scores / "perturbation.jsonl")
    assert [(p["case_id"], p["item_id"], p["old"], p["new"], p["after"]) for p in perturb] == [
        ("a-without", "C02", "21.5", "24.3", "no"),
        ("a-without", "C03", "3", "4", "no"),
        ("a-without", "C05", "3", "4", "yes"),
        ("b-with", "C02", "21.5", "24.3", "no"),
        ("b-with", "C03", "3", "4", "no"),
        ("b-with", "C05", "3", "4", "yes"),
        ("d-with", "C03", "3", "4", "no"),
        ("d-with", "C05", "3", "4", "yes"),
    ]
    analysis = json.loads((scores / "analysis.json").read_text())
    assert analysis["perturbation"]["all"]["share_no"] == pytest.approx(5 / 8)
    assert analysis["perturbation"]["code"]["share_no"] == 1.0
    assert analysis["perturbation"]["model"]["share_no"] == pytest.approx(0.5)
    assert analysis["auc"]["partial_credit"]["auc"] == 1.0
    assert analysis["auc"]["raw_credit"]["auc"] == 1.0
    pairs = analysis["pairs"]
    assert pairs["n_pairs"] == 2
    # c-without 1/5 -> d-with 4/6: change 7/15
    assert pairs["transitions"]["FAIL→FAIL"]["median_change"] == pytest.approx(7 / 15)
    assert pairs["transitions"]["FAIL→FAIL"]["share_improved"] == 1.0
    assert pairs["transitions"]["PASS→PASS"]["median_change"] == 0.0
    assert analysis["perfect_agrees_with_outcome"] == {"with_endpoint": 1.0,
                                                        "without_endpoint": 1.0}
    html = (scores / "checklist_report.html").read_text()
    assert "Checklist partial credit" in html and "d-with" in html
    assert "<script src" not in html and "<link" not in html  # self-contained
    assert_reproduces(scores, "pipeline")


def test_offline_scores_mechanical_items_only(setup: tuple[Path, Path], tmp_path: Path) -> None:
    tasks, dataset = setup
    task = load_task(tasks / TASK)
    payload = SynthPayload.model_validate(
        {"items": synth_items("with the keys `days` and `mean_temp`")})
    write_checklist(tmp_path / "cl", to_checklist(payload, task, "rules", None))
    out = tmp_path / "offline"
    eval_checklist(dataset, tmp_path / "cl", out, "--model", "offline")
    judged = {r.case_id: {i.id: (i.label.value, i.source.value)
                          for i in read_details(r.verdict.details).items}  # type: ignore[union-attr]
              for r in load_records(out)}
    assert judged["c-without"] == {
        "C01": ("yes", "code"), "C02": ("no", "code"), "C03": ("abstain", "skipped"),
        "C04": ("abstain", "code"), "C05": ("abstain", "skipped")}
    assert judged["d-with"]["C02"] == ("no", "code")  # 22.0 vs 21.5
    assert judged["a-without"]["C04"] == ("yes", "code")
    rows = {r["case_id"]: r for r in map(json.loads, scores_jsonl(out).splitlines())}
    # a (PASS): C01, C02 Yes by code; C03 Yes by the outcome step; C04 Yes; C05 abstain -> 1.0,
    # coverage 3/5 (raw: C03, C05 undecided). c (FAIL): Yes C01; No C02 and the endpoint; C04
    # Abstain (no CSV recovered) -> 1/3.
    assert rows["a-without"]["partial_credit"] == 1.0
    assert rows["a-without"]["coverage"] == pytest.approx(3 / 5)
    assert rows["c-without"]["partial_credit"] == pytest.approx(1 / 3)
    # offline: code items only
    invoke("checklist", "analyze", str(out), "--perturb", "--checklists", str(tmp_path / "cl"))
    perturb = read_dicts(out / "perturbation.jsonl")
    assert [(p["case_id"], p["item_id"], p["after"]) for p in perturb] == [
        ("a-without", "C02", "no"), ("b-with", "C02", "no")]


def test_synth_and_judge_are_recorded_and_replay_with_the_server_stopped(
        fake_api: FakeMessagesServer, setup: tuple[Path, Path], tmp_path: Path) -> None:
    tasks, dataset = setup
    url = fake_api.base_url
    fake_api.push(api_reply(tool_use("submit_checklist", {
        "items": synth_items("with the keys `days` and `mean_temp`")})))
    invoke("checklist", "synth", str(tasks / TASK), "--out", str(tmp_path / "cl"), "--model",
           "m-syn", "--base-url", url)
    fake_api.responder = judge_responder
    eval_checklist(dataset, tmp_path / "cl", tmp_path / "live", "--model", "m-judge",
                   "--base-url", url, "--concurrency", "1")
    n_live = len(fake_api.bodies)
    assert len(read_dicts(tmp_path / "cl" / "transcript.jsonl")) == 1
    recorded = sorted((tmp_path / "live" / "cases").glob("*/transcript.jsonl"))
    assert sum(len(read_dicts(t)) for t in recorded) == n_live - 1 > 0
    fake_api.stop()

    invoke("checklist", "synth", str(tasks / TASK), "--out", str(tmp_path / "cl2"), "--model",
           "m-syn", "--base-url", url, "--replay", str(tmp_path / "cl"))
    assert (tmp_path / "cl2" / f"{TASK}.json").read_bytes() == \
        (tmp_path / "cl" / f"{TASK}.json").read_bytes()
    eval_checklist(dataset, tmp_path / "cl2", tmp_path / "again", "--model", "m-judge",
                   "--base-url", url, "--replay", str(tmp_path / "live"), "--concurrency", "1")
    # the same judgments, citations and scores: products byte-identical, usage included (two
    # cases send the very same request; one worker gets its recordings in the recorded order)
    assert scores_jsonl(tmp_path / "again") == scores_jsonl(tmp_path / "live")
    for case in sorted((tmp_path / "live" / "cases").iterdir()):
        for name in ("inspection_log.jsonl", "plan.md"):
            assert (tmp_path / "again" / "cases" / case.name / name).read_bytes() == \
                (case / name).read_bytes()
    again = {r.case_id: r.verdict for r in load_records(tmp_path / "again")}
    for r in load_records(tmp_path / "live"):
        assert again[r.case_id].details == r.verdict.details
        assert again[r.case_id].usage.model_dump() == r.verdict.usage.model_dump(), r.case_id
    assert len(fake_api.bodies) == n_live

    nothing_recorded = tmp_path / "empty"
    nothing_recorded.mkdir()
    missing = runner.invoke(app, ["eval", str(dataset), "--judge", "checklist", "-o",
                                  f"checklists={tmp_path / 'cl'}", "--model", "m-judge",
                                  "--replay", str(nothing_recorded), "--run-dir",
                                  str(tmp_path / "x"), "--no-progress"])
    assert missing.exit_code == 2 and "no transcript.jsonl" in missing.output


def test_compare_and_select_take_checklist_runs(setup: tuple[Path, Path], tmp_path: Path) -> None:
    tasks, dataset = setup
    payload = SynthPayload.model_validate(
        {"items": synth_items("with the keys `days` and `mean_temp`")})
    write_checklist(tmp_path / "cl", to_checklist(payload, load_task(tasks / TASK), "rules", None))
    lenient, strict = tmp_path / "lenient", tmp_path / "strict"
    eval_checklist(dataset, tmp_path / "cl", lenient, "--model", "offline")
    eval_checklist(dataset, tmp_path / "cl", strict, "--model", "offline", "-o", "threshold=1.0")
    # raw credit by code alone: a, b 1.0 (3 yes), c 1/2, d 2/3 -> lenient passes all four,
    # strict only a and b
    decisions = {r.case_id: (r.decision.value, r.verdict.score) for r in load_records(lenient)}
    assert decisions == {"a-without": ("pass", 1.0), "b-with": ("pass", 1.0),
                         "c-without": ("pass", 0.5), "d-with": ("pass", pytest.approx(2 / 3))}
    assert [r.decision.value for r in load_records(strict)] == ["pass", "pass", "fail", "fail"]
    invoke("compare", str(lenient), str(strict), "--out", str(tmp_path / "cmp.json"))
    comparison = json.loads((tmp_path / "cmp.json").read_text())
    assert comparison["accuracy_a"] == 0.5 and comparison["accuracy_b"] == 1.0
    invoke("select", str(lenient), str(strict), "--by", "score", "--n-max", "2",
           "--out", str(tmp_path / "sel"))
    curves = {c["selector"]: c for c in json.loads((tmp_path / "sel" / "select.json")
                                                   .read_text())["curves"]}
    # one task, four runs: a, b pass (scored 1.0), c, d fail (1/2, 2/3). n=1 is a uniform pick;
    # n=2 picks a pass from every pair but {c, d} -> 5/6. By decision the lenient run (all
    # predicted pass) would stay at chance, 1/2.
    assert curves[str(lenient)]["rule"] == "score"
    assert curves[str(lenient)]["expected"] == pytest.approx([0.5, 5 / 6])
    assert curves["random"]["expected"] == [0.5, 0.5]


def test_the_old_score_command_names_its_replacement(tmp_path: Path) -> None:
    result = runner.invoke(app, ["checklist", "score", str(tmp_path), "--checklists",
                                 str(tmp_path), "--out", str(tmp_path / "s"), "--offline"])
    assert result.exit_code == 2
    assert "eval DATASET --judge checklist -o checklists=CHECKLISTS" in result.output
