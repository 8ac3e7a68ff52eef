"""Checklist partial credit on the bundled examples (4 tasks with verifier tests, 12 trials), end
to end through the real CLI and the anthropic SDK against the fake Messages server: synth →
validate → `eval --judge checklist` → the run's metrics → `checklist analyze RUN_DIR`.

The scripted synthesizer and judge (`scripted.py`) answer only from what their requests hold, so
the checklists and judgments below follow from the bundled instructions, verifiers and logs.
Expected values are worked out by hand in the comments from those files; `golden/` holds what
the earlier standalone pipeline (`checklist score` + `analyze --perturb`) wrote for the same
inputs, which the run reproduces byte for byte.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.checklist.evidence import load_log
from judge_runner.checklist.metrics import read_details
from judge_runner.checklist.outcome import ENDPOINT_ID
from judge_runner.checklist.score import render_log
from judge_runner.checklist.tasks import load_task
from judge_runner.checklist.validate import validate
from judge_runner.jsonl import read_dicts
from judge_runner.runs import load_records
from judge_runner.text import collapse_ws
from tests.checklist import scripted
from tests.checklist.runs import (
    assert_reproduces,
    eval_checklist,
    invoke,
    scores_jsonl,
    synthesize,
    task_dirs,
)
from tests.conftest import EXAMPLES, require
from tests.fakeapi.server import ALL_REQUESTS, FakeMessagesServer, ReceivedRequest

SOLUTION_MARKER = "BUNDLED-SOLUTION-5e0b"


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(tasks, dataset): the bundled tasks, each with a planted reference solution the
    synthesizer must never see, and the bundled trials imported through the CLI."""
    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    root = tmp_path_factory.mktemp("bundled")
    tasks = root / "tasks"
    shutil.copytree(EXAMPLES / "tasks", tasks)
    for task in tasks.iterdir():
        (task / "solution").mkdir()
        (task / "solution" / "solve.sh").write_text(f"echo {SOLUTION_MARKER}\n",
                                                     encoding="utf-8")
    invoke("import", str(EXAMPLES / "trials"), "--tasks", str(EXAMPLES / "tasks"),
           "--out", str(root / "dataset"))
    return tasks, root / "dataset"


def runs(dataset: Path) -> dict[tuple[str, str], str]:
    """(task, agent model family) -> case id; the importer's ids are hashes."""
    found = {}
    for case in Dataset(dataset).cases():
        family = next(f for f in ("haiku", "sonnet", "opus") if f in (case.meta.source.model or ""))
        found[(case.meta.task, family)] = case.id
    return found


def sent_text(request: ReceivedRequest) -> str:
    """Every string of the request body, decoded (a raw-JSON scan would miss quoted text)."""
    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []
    return "\n".join(strings(request.body))


def user_text(request: ReceivedRequest) -> str:
    return str(request.body["messages"][0]["content"][0]["text"])


def attribute(requests: list[ReceivedRequest], dataset: Path) -> dict[str, ReceivedRequest]:
    """case id -> the judge request holding that case's execution log (exactly one each)."""
    logs = {c.id: render_log(load_log(c)) for c in Dataset(dataset).cases()}
    found = {case_id: [r for r in requests if log in user_text(r)]
             for case_id, log in logs.items()}
    assert all(len(v) == 1 for v in found.values()), {k: len(v) for k, v in found.items()}
    return {case_id: v[0] for case_id, v in found.items()}


def case_secrets(dataset: Path, case_id: str) -> list[str]:
    """Verifier evidence lines of one case that its own package does not hold."""
    public = "\n".join(p.read_text(errors="replace") for p in
                       sorted((dataset / "cases" / case_id).rglob("*")) if p.is_file())
    lines = [line.strip() for p in sorted((dataset / "evidence" / case_id).rglob("*"))
             if p.is_file() for line in p.read_text(errors="replace").splitlines()]
    return [line for line in lines if len(line) >= 16 and line not in public]


def run_texts(dataset: Path, tasks: Path) -> list[str]:
    """Distinctive lines of every run's trajectory and final report: text only a run holds (a
    line that also occurs in its task's instruction or verifier is public, so it is left out)."""
    found = []
    for case in Dataset(dataset).cases():
        source = load_task(tasks / case.meta.task)
        public = "\n".join([source.instruction, *source.verifier_files.values()])
        trajectory = case.trajectory
        texts = [s.output or "" for s in trajectory.steps] + [trajectory.final_message or ""]
        found += [line.strip() for t in texts for line in t.splitlines()
                  if len(line.strip()) >= 20 and line.strip() not in public]
    return found


def test_bundled_examples_end_to_end(fake_api: FakeMessagesServer,
                                     bundled: tuple[Path, Path], tmp_path: Path) -> None:
    tasks, dataset = bundled
    checklists_dir, run_dir = tmp_path / "checklists", tmp_path / "run"

    # --- synth: every bundled task, one request each, every checklist through the gates first
    checklists = synthesize(fake_api, tasks, checklists_dir)
    names = [p.name for p in task_dirs(tasks)]
    assert names == sorted(p.name for p in (EXAMPLES / "tasks").iterdir())
    assert sorted(checklists) == names and len(names) == 4
    synth_requests = list(fake_api.requests)
    assert len(synth_requests) == 4  # no repair turn was needed
    for name, checklist in checklists.items():
        task = load_task(tasks / name)
        assert validate(checklist, task) == []
        assert checklist.provenance.instruction_sha256 == task.instruction_sha256
        assert checklist.provenance.model == "m-syn"
        for item in checklist.items:
            if item.quote is not None:
                assert collapse_ws(item.quote) in collapse_ws(task.instruction), (name, item.id)
        refs = {i.verifier_ref for i in checklist.items if i.verifier_ref}
        # Every test of these verifiers shares words with some sentence of its instruction,
        # so each one is cited, and only real tests are.
        assert refs == set(task.test_names), name
        assert checklist.items[-1].kind.value == "claim_trace"
    # battery: 3 tests + CSV columns of schedule.csv + profit.json written + claim item
    battery = checklists["battery-arbitrage-schedule"]
    assert [(i.route.value, i.check.kind if i.check else None) for i in battery.items] == [
        ("assertion", None), ("assertion", "artifact_exists"), ("assertion", None),
        ("generated", "csv_columns"), ("generated", "artifact_exists"), ("judge", None)]
    assert battery.items[3].check is not None and battery.items[3].check.model_dump()[
        "columns"] == ["hour", "charge_mw", "discharge_mw", "soc_mwh"]

    # isolation: synthesizer requests carry instruction and verifier only
    synth_text = "\n".join(sent_text(r) for r in synth_requests)
    forbidden = [*run_texts(dataset, tasks), SOLUTION_MARKER]
    forbidden += (dataset / "labels.jsonl").read_text().splitlines()
    forbidden += [s for c in runs(dataset).values() for s in case_secrets(dataset, c)]
    forbidden += [line for p in tasks.glob("*/environment/skills/*/SKILL.md")
                  for line in p.read_text().splitlines() if len(line) >= 20]
    assert len(forbidden) > 100  # the scan has teeth: trajectories, labels, evidence, skills
    assert [f for f in forbidden if f in synth_text] == []
    # one request per task, holding that task's own instruction and verifier test ids
    firsts = {r.body["messages"][0]["content"][0]["text"].split("\n", 1)[0]: r
              for r in synth_requests}
    assert sorted(firsts) == [f"Task: {n}" for n in names]
    for name in names:
        seen = scripted.read_synth_request(firsts[f"Task: {name}"])
        assert seen.instruction == load_task(tasks / name).instruction.rstrip()
        assert seen.test_ids == list(load_task(tasks / name).test_names)

    invoke("checklist", "validate", str(checklists_dir), "--tasks", str(tasks))

    # --- the checklist judge: model items through the item judge, one request per case
    fake_api.responder = scripted.judge_responder
    printed = eval_checklist(dataset, checklists_dir, run_dir, "--model", "m-judge",
                             "--base-url", fake_api.base_url, "--concurrency", "4").output
    assert "0.600 / 1.000 / 1.000" in printed  # AUC of raw / partial / gated credit
    judge_requests = fake_api.requests[4:]
    assert len(judge_requests) == 12
    # control for the isolation scan above: the same scan finds every run line in the judge
    # requests, where run text belongs
    judge_sent = "\n".join(sent_text(r) for r in judge_requests)
    assert [t for t in run_texts(dataset, tasks) if t not in judge_sent] == []
    by_case = attribute(judge_requests, dataset)
    label_lines = (dataset / "labels.jsonl").read_text().splitlines()
    for case_id, request in by_case.items():
        sent = sent_text(request)
        leaked = [s for s in case_secrets(dataset, case_id) + label_lines if s in sent]
        assert leaked == [], case_id
        assert "test_outputs.py::" not in sent and SOLUTION_MARKER not in sent
        # items with a mechanical check never reach the model; all the others do
        checklist = checklists[Dataset(dataset).case(case_id).meta.task]
        listed = [i for i, _, _ in scripted.read_judge_request(request).items]
        assert listed == [i.id for i in checklist.ordered() if i.check is None]

    run = runs(dataset)
    labels = {r["case_id"]: r["label"] for r in read_dicts(dataset / "labels.jsonl")}
    rows = {r["case_id"]: r for r in map(json.loads, scores_jsonl(run_dir).splitlines())}
    judged = {c: {i["plan_item"]: i for i in read_dicts(run_dir / "cases" / c /
                                                        "inspection_log.jsonl")}
              for c in labels}
    items = {r.case_id: {i.id: i for i in read_details(r.verdict.details).items}  # type: ignore[union-attr]
             for r in load_records(run_dir)}
    assert len(rows) == 12 and sorted(labels.values()).count("pass") == 6
    for case_id, row in rows.items():
        assert row["outcome"] == labels[case_id]
        if labels[case_id] == "pass":  # assertion items Yes; nothing judged No
            assert row["partial_credit"] == 1.0 and row["perfect_with_endpoint"], case_id
        else:
            assert row["partial_credit"] < 1.0, case_id
            assert row["items"][-1]["item_id"] == ENDPOINT_ID and not row["perfect_with_endpoint"]
    # FAIL runs, by hand from the judgments (Yes / (Yes + No), endpoint No included):
    # battery sonnet: C03 Yes (it read battery.json), claim item Yes, endpoint -> 2/3.
    # interval opus: C02 Yes (core.py edited), C05 Yes by code, C06 No (the report says "All
    # tests pass" and no step ran a test), endpoint -> 2/4; the gated reading stops at C06.
    # ssh opus: no final report, no output recovered -> only the endpoint -> 0.
    # the other three: only the claim item Yes, endpoint -> 1/2.
    expected = {("battery-arbitrage-schedule", "sonnet"): 2 / 3,
                ("battery-arbitrage-schedule", "haiku"): 1 / 2,
                ("interval-merge-bugfix", "opus"): 1 / 2,
                ("sales-monthly-summary", "haiku"): 1 / 2,
                ("ssh-bruteforce-triage", "haiku"): 1 / 2,
                ("ssh-bruteforce-triage", "opus"): 0.0}
    assert {k: rows[run[k]]["partial_credit"] for k in expected} == pytest.approx(expected)
    opus_fix = run[("interval-merge-bugfix", "opus")]
    assert rows[opus_fix]["stopped_at"] == "C06" and rows[opus_fix]["raw_credit"] == 2 / 3
    claim = judged[opus_fix]["C06"]
    assert claim["outcome"] == "refutes" and claim["evidence"] == [
        {"kind": "report", "ref": "final", "quote": "All tests pass", "verified": True}]
    # Code decides the checked items: the regression test file is recovered for every interval
    # run (Yes); the sales summary is written by a script, so it is not among the artifacts and
    # stays Abstain even where the verifier found it -- never a No.
    for family in ("haiku", "sonnet", "opus"):
        c05 = items[run[("interval-merge-bugfix", family)]]["C05"]
        assert (c05.label.value, c05.source.value) == ("yes", "code")
        c01 = items[run[("sales-monthly-summary", family)]]["C01"]
        assert (c01.label.value, c01.source.value) == ("abstain", "code")
    for case in judged.values():  # every Yes/No the judge gave rests on a verified quote
        for j in case.values():
            assert j["outcome"] == "inconclusive" or any(e["verified"] for e in j["evidence"])

    # --- the run's metrics: AUC of raw and outcome-gated credit against the label
    metrics = json.loads((run_dir / "metrics.json").read_text())["checklist"]
    assert metrics["auc"]["partial_credit"] == {"auc": 1.0, "n_pass": 6, "n_fail": 6,
                                                "n_unscored": 0}
    # raw credit (judgments alone): every PASS 1.0; FAIL 1.0 x4, 2/3 (interval opus) and one
    # undefined (ssh opus). Pairs: 24 ties (12) + 6 wins over 2/3 -> 18 / 30.
    assert metrics["auc"]["raw_credit"] == {"auc": pytest.approx(0.6), "n_pass": 6,
                                            "n_fail": 5, "n_unscored": 1}
    report = (run_dir / "report.html").read_text()
    assert 'id="checklist-auc"' in report and "raw_credit" in report
    assert "| raw_credit | 0.600 | 6 | 5 | 1 |" in (run_dir / "report.md").read_text()

    # --- analyze the run dir, with the perturbation check
    invoke("checklist", "analyze", str(run_dir), "--perturb", "--checklists",
           str(checklists_dir), "--base-url", fake_api.base_url)
    analysis = json.loads((run_dir / "analysis.json").read_text())
    # one run without skills (sales, sonnet) and no with-skill sonnet sales run: no pair
    assert analysis["pairs"]["n_pairs"] == 0 and analysis["pairs"]["n_unmatched"] == 12
    html = (run_dir / "checklist_report.html").read_text()
    assert all(case_id in html for case_id in rows)
    assert_reproduces(run_dir, "examples")


def test_bundled_examples_offline(fake_api: FakeMessagesServer, bundled: tuple[Path, Path],
                                  tmp_path: Path) -> None:
    tasks, dataset = bundled
    checklists = synthesize(fake_api, tasks, tmp_path / "checklists")
    fake_api.responder = None
    before, before_all = len(fake_api.requests), len(ALL_REQUESTS)
    # A model client, had one been made, would reach this server: it must receive nothing.
    out = tmp_path / "offline"
    eval_checklist(dataset, tmp_path / "checklists", out, "--model", "offline",
                   env={"ANTHROPIC_BASE_URL": fake_api.base_url})
    assert len(fake_api.requests) == before and len(ALL_REQUESTS) == before_all

    run = runs(dataset)
    judged = {r.case_id: read_details(r.verdict.details) for r in load_records(out)}
    assert len(judged) == 12
    for case_id, case in judged.items():
        assert case is not None
        checklist = checklists[case.task]
        for j in case.items:
            checked = checklist.item(j.id).check is not None
            assert j.source.value == ("code" if checked else "skipped"), (case_id, j)
    # interval: the recovered test file is a Yes by code for all three runs; every other
    # checked file (battery, sales, ssh outputs) was written by a script: Abstain, not No.
    decided = {(c.task, j.id, j.label.value) for c in judged.values() if c is not None
               for j in c.items if j.source.value == "code" and j.label.value != "abstain"}
    assert decided == {("interval-merge-bugfix", "C05", "yes")}
    # the judge abstains on all twelve: the interval runs decide 1 of 6 items (coverage 0.167,
    # below the default 0.25), the others none
    decisions = {r.case_id: r.decision.value for r in load_records(out)}
    assert set(decisions.values()) == {"abstain"} and len(decisions) == 12
    rows = {r["case_id"]: r for r in map(json.loads, scores_jsonl(out).splitlines())}
    # PASS: assertion items Yes by the outcome step -> 1.0. FAIL: the endpoint No, plus the
    # code Yes for interval opus -> 1/2 there and 0 elsewhere.
    for key, case_id in run.items():
        label = rows[case_id]["outcome"]
        want = 1.0 if label == "pass" else 0.5 if key == ("interval-merge-bugfix", "opus") else 0
        assert rows[case_id]["partial_credit"] == want, key
    invoke("checklist", "analyze", str(out), "--perturb", "--checklists",
           str(tmp_path / "checklists"))
    analysis = json.loads((out / "analysis.json").read_text())
    assert analysis["auc"]["partial_credit"]["auc"] == 1.0
    assert_reproduces(out, "examples-offline")
