"""inspect_ai eval logs round trip: written by inspect_ai itself (mock model, no network),
imported with `import --format inspect`, judged by the rules judge, viewed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cases import Dataset, StepKind, validate_dataset
from judge_runner.cli.root import app
from tests.conftest import require


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.ingest.inspect_task import write_log

    require(importlib.util.find_spec("inspect_ai") is not None,
            "inspect_ai (the 'inspect' extra, in the dev set) is not installed")

    return write_log(tmp_path_factory.mktemp("inspect-logs"))


@pytest.fixture(scope="module")
def imported(log: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inspect") / "dataset"
    result = CliRunner().invoke(app, ["import", "--format", "inspect", str(log.parent),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_one_case_per_sample_with_steps_and_the_scorer_label(imported: Path) -> None:
    data = Dataset(imported)
    assert validate_dataset(imported) == []
    by_sample = {c.meta.source.trial_name: c for c in data.cases()}
    assert sorted(by_sample) == ["s1@1", "s2@1", "s3@1"]
    labels = data.labels()
    assert [labels[by_sample[s].id].label.value for s in sorted(by_sample)] == \
        ["pass", "fail", "fail"]
    first = by_sample["s1@1"]
    assert first.instruction == "What is 2 + 3? Use the add tool."
    assert first.meta.task == "adder" and first.meta.source.model == "mockllm/model"
    call = next(s for s in first.trajectory.steps if s.kind is StepKind.TOOL_CALL)
    assert (call.tool, call.arguments, call.output, call.is_error) == \
        ("add", {"x": 2, "y": 3}, "5", False)
    assert first.trajectory.final_message == "The answer is 5."
    failed = next(s for s in by_sample["s3@1"].trajectory.steps if s.kind is StepKind.TOOL_CALL)
    assert failed.is_error and "negative numbers are not supported" in (failed.output or "")


def test_no_score_reaches_the_cases(imported: Path) -> None:
    for path in (imported / "cases").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "includes" not in text and '"C"' not in text and "target" not in text


def test_judged_by_the_rules_judge_and_viewed(imported: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", str(imported), "--judge", "rules",
                                      "--run-dir", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    verdicts = [json.loads(line) for line in (run / "verdicts.jsonl").read_text().splitlines()]
    assert len(verdicts) == 3 and all(v["decision"] != "error" for v in verdicts)
    result = CliRunner().invoke(app, ["view", str(run)])
    assert result.exit_code == 0, result.output
    pages = list((run / "view" / "cases").glob("*.html"))
    assert len(pages) == 3
    assert any("negative numbers are not supported" in p.read_text() for p in pages)


def test_an_unknown_scorer_or_a_broken_log_fails_that_log_only(log: Path, tmp_path: Path) -> None:
    broken = tmp_path / "logs"
    broken.mkdir()
    (broken / "broken.eval").write_bytes(b"not a zip")
    (broken / log.name).write_bytes(log.read_bytes())
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["import", "--format", "inspect", str(broken),
                                      "--out", str(out)])
    assert result.exit_code == 1
    report = json.loads((out / "import_report.json").read_text())
    statuses = sorted(t["status"] for t in report["trials"])
    assert statuses == ["failed", "imported", "imported", "imported"]
    assert "broken.eval" in next(t["reason"] for t in report["trials"] if t["status"] == "failed")
    result = CliRunner().invoke(app, ["import", "--format", "inspect", str(log), "--scorer",
                                      "nope", "--out", str(tmp_path / "ds2")])
    assert result.exit_code == 1
    report = json.loads((tmp_path / "ds2" / "import_report.json").read_text())
    assert "no scorer 'nope'" in report["trials"][0]["reason"]
