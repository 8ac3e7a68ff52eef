"""The checklist pipeline on the bundled examples (4 tasks with verifier tests, 12 trials), end
to end through the real CLI and the anthropic SDK against the fake Messages server.

The scripted synthesizer and judge (`scripted.py`) answer only from what their requests hold, so
the checklists and judgments below follow from the bundled instructions, verifiers and logs.
Expected values are worked out by hand in the comments from those files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge_runner.cases import Dataset
from judge_runner.checklist.evidence import load_log
from judge_runner.checklist.models import Checklist, read_checklist
from judge_runner.checklist.outcome import ENDPOINT_ID
from judge_runner.checklist.score import render_log
from judge_runner.checklist.tasks import load_task
from judge_runner.checklist.validate import validate
from judge_runner.cli import app
from judge_runner.jsonl import read_dicts
from judge_runner.text import collapse_ws
from tests.checklist import scripted
from tests.conftest import EXAMPLES, require
from tests.fakeapi.server import ALL_REQUESTS, FakeMessagesServer, ReceivedRequest

SOLUTION_MARKER = "BUNDLED-SOLUTION-5e0b"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    result = runner.invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


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


def task_dirs(tasks: Path) -> list[Path]:
    return sorted(p for p in tasks.iterdir() if (p / "tests").is_dir())


def synthesize(server: FakeMessagesServer, tasks: Path, out: Path) -> dict[str, Checklist]:
    server.responder = scripted.synth_responder
    invoke("checklist", "synth", *map(str, task_dirs(tasks)), "--out", str(out),
           "--model", "m-syn", "--base-url", server.base_url)
    return {p.stem: read_checklist(p) for p in sorted(out.glob("*.json"))}


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
    checklists_dir, scores = tmp_path / "checklists", tmp_path / "scores"

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

    # --- score: model items through the judge, one request per case
    fake_api.responder = scripted.judge_responder
    invoke("checklist", "score", str(dataset), "--checklists", str(checklists_dir),
           "--out", str(scores), "--judge-model", "m-judge", "--base-url", fake_api.base_url,
           "--workers", "4")
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
    rows = {r["case_id"]: r for r in read_dicts(scores / "scores.jsonl")}
    judged = {r["case_id"]: {j["item_id"]: j for j in r["judgments"]}
              for r in read_dicts(scores / "judgments.jsonl")}
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
    assert claim["label"] == "no" and claim["evidence"] == [
        {"kind": "report", "ref": "final", "quote": "All tests pass", "verified": True}]
    # Code decides the checked items: the regression test file is recovered for every interval
    # run (Yes); the sales summary is written by a script, so it is not among the artifacts and
    # stays Abstain even where the verifier found it -- never a No.
    for family in ("haiku", "sonnet", "opus"):
        c05 = judged[run[("interval-merge-bugfix", family)]]["C05"]
        assert (c05["label"], c05["source"]) == ("yes", "code")
        c01 = judged[run[("sales-monthly-summary", family)]]["C01"]
        assert (c01["label"], c01["source"]) == ("abstain", "code")
    for case in judged.values():  # every Yes/No the judge gave rests on a verified quote
        for j in case.values():
            assert j["label"] == "abstain" or any(e["verified"] for e in j["evidence"])

    # --- analyze
    invoke("checklist", "analyze", str(scores))
    analysis = json.loads((scores / "analysis.json").read_text())
    assert analysis["auc"]["partial_credit"] == {"auc": 1.0, "n_pass": 6, "n_fail": 6,
                                                 "n_unscored": 0}
    # raw credit (judgments alone): every PASS 1.0; FAIL 1.0 x4, 2/3 (interval opus) and one
    # undefined (ssh opus). Pairs: 24 ties (12) + 6 wins over 2/3 -> 18 / 30.
    assert analysis["auc"]["raw_credit"] == {"auc": pytest.approx(0.6), "n_pass": 6,
                                             "n_fail": 5, "n_unscored": 1}
    # one run without skills (sales, sonnet) and no with-skill sonnet sales run: no pair
    assert analysis["pairs"]["n_pairs"] == 0 and analysis["pairs"]["n_unmatched"] == 12
    html = (scores / "checklist_report.html").read_text()
    assert all(case_id in html for case_id in rows)


def test_bundled_examples_offline(fake_api: FakeMessagesServer, bundled: tuple[Path, Path],
                                  tmp_path: Path) -> None:
    tasks, dataset = bundled
    checklists = synthesize(fake_api, tasks, tmp_path / "checklists")
    fake_api.responder = None
    before, before_all = len(fake_api.requests), len(ALL_REQUESTS)
    # A model client, had one been made, would reach this server: it must receive nothing.
    out = tmp_path / "offline"
    invoke("checklist", "score", str(dataset), "--checklists", str(tmp_path / "checklists"),
           "--out", str(out), "--offline", env={"ANTHROPIC_BASE_URL": fake_api.base_url})
    assert len(fake_api.requests) == before and len(ALL_REQUESTS) == before_all

    run = runs(dataset)
    judged = {r["case_id"]: r for r in read_dicts(out / "judgments.jsonl")}
    assert len(judged) == 12
    for case in judged.values():
        checklist = checklists[case["task"]]
        for j in case["judgments"]:
            checked = checklist.item(j["item_id"]).check is not None
            assert j["source"] == ("code" if checked else "skipped"), (case["case_id"], j)
    # interval: the recovered test file is a Yes by code for all three runs; every other
    # checked file (battery, sales, ssh outputs) was written by a script: Abstain, not No.
    decided = {(c["task"], j["item_id"], j["label"]) for c in judged.values()
               for j in c["judgments"] if j["source"] == "code" and j["label"] != "abstain"}
    assert decided == {("interval-merge-bugfix", "C05", "yes")}
    rows = {r["case_id"]: r for r in read_dicts(out / "scores.jsonl")}
    # PASS: assertion items Yes by the outcome step -> 1.0. FAIL: the endpoint No, plus the
    # code Yes for interval opus -> 1/2 there and 0 elsewhere.
    for key, case_id in run.items():
        label = rows[case_id]["outcome"]
        want = 1.0 if label == "pass" else 0.5 if key == ("interval-merge-bugfix", "opus") else 0
        assert rows[case_id]["partial_credit"] == want, key
    invoke("checklist", "analyze", str(out))
    analysis = json.loads((out / "analysis.json").read_text())
    assert analysis["auc"]["partial_credit"]["auc"] == 1.0
