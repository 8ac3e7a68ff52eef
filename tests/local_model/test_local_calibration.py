"""Trust or escalate with the real local model: the rules judge, then the direct judge with three
simulated annotators (Qwen2.5-Coder-0.5B on llama.cpp), each calibrated on one half of the
bundled examples (the six cases of two tasks) and applied as a cascade to the other half (the
six cases of the two other tasks).

The in-context examples come from the dev half only, so no label of the applied half reaches a
prompt. Each direct call carries a small digest (1,200 tokens) and one short condensed example
after it (the three calls of a case share the digest as a cached prefix), with the answer
capped at 64 tokens: 18 calls for the dev half (36 with repair turns) and as many again for the
applied half when the model stage is asked, a few seconds each on an idle machine.
Six dev cases are far too few for a guarantee at 80 % agreement (that needs at least 11
decided cases with no error), so both stages calibrate at agreement 0.5, δ = 0.5 (at least 1
decided case): what it shows is the mechanics with a real model: each stage decides only at or
above its calibrated threshold, the model stage is asked about exactly the cases the rules stage
left (none at all when its calibration found no threshold: it would decide nothing), and the
report states the promise. Measured: see docs/benchmarks.md (Calibration).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from judge_runner.calibration import load
from judge_runner.cases import Dataset
from judge_runner.models.recording import TRANSCRIPT, read_transcript
from tests.local_model.conftest import MODEL, LocalModel
from tests.local_model.test_local_model import cli, records

# up to 72 real calls (a repair turn each when the model's answer is not a tool call): minutes
# on an idle machine, far more on a loaded one; the timeout only catches a hang
pytestmark = [pytest.mark.local_model, pytest.mark.slow, pytest.mark.timeout(2400)]

DEV_TASKS = ("interval-merge-bugfix", "sales-monthly-summary")
APPLY_TASKS = ("battery-arbitrage-schedule", "ssh-bruteforce-triage")
STAGE_MODEL = f"openai:{MODEL}"
STAGE = f"direct:{STAGE_MODEL}"


def _ids(dataset: Dataset, task: str, n: int) -> list[str]:
    found = [c for c in dataset.case_ids()
             if json.loads((dataset.cases_dir / c / "case.json").read_text())["task"] == task]
    return sorted(found)[:n]


def _split(path: Path, ids: list[str]) -> Path:
    path.write_text("\n".join(ids) + "\n")
    return path


def test_rules_then_three_annotators_calibrated_on_dev_applied_to_new_cases(
    local_model: LocalModel, example_dataset: Dataset, tmp_path: Path
) -> None:
    started = time.monotonic()
    root = str(example_dataset.root)
    dev_ids = [c for task in DEV_TASKS for c in _ids(example_dataset, task, 3)]
    apply_ids = [c for task in APPLY_TASKS for c in _ids(example_dataset, task, 3)]
    assert len(dev_ids) == len(apply_ids) == 6 and not set(dev_ids) & set(apply_ids)
    dev = _split(tmp_path / "dev.txt", dev_ids)
    apply = _split(tmp_path / "apply.txt", apply_ids)
    # the in-context examples come from the dev half only (a case never sees its own task's)
    pool = _split(tmp_path / "pool.txt", dev_ids)
    knobs = ["annotators=3", f"examples={root}", f"example_split={pool}", "per_set=1",
             "example_chars=100", "max_prompt_tokens=1200", "max_output_tokens=64",
             "timeout_s=400"]
    options = [x for knob in knobs for x in ("-o", knob)]
    loose = ["--agreement", "0.5", "--delta", "0.5"]

    cli("eval", root, "--judge", "rules", "--split", str(dev), "--run-dir",
        str(tmp_path / "rules-dev"), "--no-progress")
    cli("calibrate", str(tmp_path / "rules-dev"), *loose, "--out", str(tmp_path / "rules.json"))
    cli("eval", root, "--judge", "direct", "--model", STAGE_MODEL, "--base-url",
        local_model.base_url, "--split", str(dev), "-c", "1", *options, "--run-dir",
        str(tmp_path / "direct-dev"), "--no-progress")
    cli("calibrate", str(tmp_path / "direct-dev"), *loose, "--out",
        str(tmp_path / "direct.json"))
    dev_rows = records(tmp_path / "direct-dev")
    shares = {round(k / 3, 6) for k in (1, 2, 3)}  # a vote share of three annotators
    assert all(r["decision"] == "error" or r["verdict"]["confidence"] in shares
               for r in dev_rows)

    run = tmp_path / "cascade"
    cli("eval", root, "--judge", "cascade", "-o", f"stages=rules,{STAGE}", "--base-url",
        local_model.base_url, "--split", str(apply), "-c", "1", *options,
        "--calibration", str(tmp_path / "rules.json"),
        "--calibration", str(tmp_path / "direct.json"), "--run-dir", str(run), "--no-progress")
    thresholds = {"rules": load(tmp_path / "rules.json").threshold,
                  STAGE: load(tmp_path / "direct.json").threshold}
    rows = records(run)
    left_by_rules = set()
    for r in rows:
        said = r["verdict"]["details"]["stages"]
        if said[0]["decision"] == "abstain":
            left_by_rules.add(r["case_id"])
        if r["decision"] in ("pass", "fail"):
            stage = r["verdict"]["details"]["stage"]
            assert thresholds[stage] is not None
            assert r["verdict"]["confidence"] >= thresholds[stage]
    asked = {p.parents[2].name for p in run.rglob(TRANSCRIPT)
             if p.parent.name.startswith("direct") and read_transcript(p)[0]}
    # the model stage took exactly the cases the rules stage left ...
    assert {r["case_id"] for r in rows
            if len(r["verdict"]["details"]["stages"]) > 1} == left_by_rules
    if thresholds[STAGE] is None:
        assert asked == set()  # ... and, deciding nothing, was not paid for
    else:  # ... and the model saw no other (a digest over the budget is refused unasked)
        assert asked <= left_by_rules
    summary = json.loads((run / "metrics.json").read_text())
    assert summary["guarantee"]["stages"][1]["calibrated"] is True
    seconds = time.monotonic() - started
    def shown(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return [(r["case_id"], r["decision"], r["label"],
                 r["verdict"].get("confidence"))  # type: ignore[attr-defined]
                for r in rows]

    print(f"rules threshold {thresholds['rules']}, direct threshold {thresholds[STAGE]}; "
          f"dev: {shown(dev_rows)}; apply: {shown(rows)}; "
          f"guarantee: {summary['guarantee']['statement']}; {seconds:.0f} s")
