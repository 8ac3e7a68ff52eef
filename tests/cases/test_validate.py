"""Dataset validation: each rule fires on a dataset broken in exactly that way."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import CasePackage, ValidationLimits, validate_dataset
from judge_runner.cases.validate import package_problems
from judge_runner.ingest import ImportOptions, import_trials
from tests import casebuilder
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pristine") / "ds"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    return out


@pytest.fixture
def dataset(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ds"
    shutil.copytree(pristine, copy)
    return copy


def _first_case(dataset: Path) -> Path:
    return sorted((dataset / "cases").iterdir())[0]


def _fields(dataset: Path, limits: ValidationLimits | None = None) -> set[tuple[str, str]]:
    return {(i.case_id, i.field) for i in validate_dataset(dataset, limits)}


def test_examples_are_valid(dataset: Path) -> None:
    assert validate_dataset(dataset) == []


def test_missing_label_line_is_reported(dataset: Path) -> None:
    labels = (dataset / "labels.jsonl").read_text().splitlines()
    dropped = json.loads(labels[0])["case_id"]
    (dataset / "labels.jsonl").write_text("\n".join(labels[1:]) + "\n")
    assert (dropped, "labels.jsonl") in _fields(dataset)


def _leaks(dataset: Path) -> set[tuple[str, str]]:
    return {(i.field, i.message) for i in validate_dataset(dataset) if "(leak)" in i.message
            or "inside a case folder" in i.message}


def test_leaked_verifier_output_is_reported(dataset: Path) -> None:
    case = _first_case(dataset)
    evidence = dataset / "evidence" / case.name / "verifier" / "test-stdout.txt"
    (case / "artifacts" / "notes.log").write_bytes(evidence.read_bytes())
    assert _leaks(dataset) == {("artifacts/notes.log", f"identical to evidence/{case.name}/"
                                                       "verifier/test-stdout.txt (leak)")}


def test_renamed_copies_and_hard_links_of_labels_are_leaks(dataset: Path) -> None:
    """Whatever it is called, a copy or a hard link of a label or evidence file is refused."""
    case = _first_case(dataset)
    other = sorted((dataset / "cases").iterdir())[1].name
    os.link(dataset / "labels.jsonl", case / "artifacts" / "table.csv")
    (case / "skills" / "notes.txt").write_bytes((dataset / "labels.jsonl").read_bytes())
    os.link(dataset / "evidence" / other / "verifier" / "test-stdout.txt", case / "log.txt")
    os.mkfifo(case / "artifacts" / "pipe")
    (dataset / "evidence" / case.name / "verifier" / "reward.txt").write_text("1")
    (case / "artifacts" / "old").mkdir()
    (case / "artifacts" / "old" / "reward.txt").write_text("1")  # tiny: name and bytes match
    assert _leaks(dataset) == {
        ("artifacts/old/reward.txt", f"identical to evidence/{case.name}/verifier/reward.txt "
                                     "(leak)"),
        ("artifacts/table.csv", "the same file as labels.jsonl (a hard link) (leak)"),
        ("skills/notes.txt", "identical to labels.jsonl (leak)"),
        ("log.txt", f"the same file as evidence/{other}/verifier/test-stdout.txt (a hard "
                    "link) (leak)"),
        ("artifacts/pipe", "neither a file nor a folder inside a case folder")}
    # The runner's check (the case's own evidence, the labels) refuses the labels copies too.
    fields = {p.field for p in package_problems(CasePackage(case), dataset)}
    assert {"artifacts/table.csv", "skills/notes.txt", "artifacts/pipe"} <= fields


def test_honest_files_with_label_like_names_are_not_leaks(dataset: Path) -> None:
    """An agent may write reward.txt, labels.jsonl, ctrf.json or a folder called evidence."""
    case = _first_case(dataset)
    art = case / "artifacts"
    (art / "evidence").mkdir()
    (art / "evidence" / "photo-log.txt").write_text("exhibit A: the router config\n")
    (art / "reward.txt").write_text("reward model notes: prefer short answers\n")
    (art / "labels.jsonl").write_text('{"label": "cat", "image": "1.png"}\n')
    (art / "ctrf.json").write_text('{"results": {"tool": "my own test run"}}\n')
    (dataset / "evidence" / case.name / "verifier" / "reward.txt").write_text("1")
    (art / "answer.txt").write_text("1")  # the bytes of the tiny reward.txt, another name
    assert _leaks(dataset) == set()
    assert package_problems(CasePackage(case), dataset) == []


def test_non_contiguous_indices_and_bad_stats(dataset: Path) -> None:
    case = _first_case(dataset)
    path = case / "trajectory.json"
    doc = json.loads(path.read_text())
    doc["steps"][1]["index"] = 7
    path.write_text(json.dumps(doc))
    fields = _fields(dataset)
    assert (case.name, "trajectory.json:steps.1.index") in fields
    assert (case.name, "case.json:stats.normalized_chars") in fields


def test_missing_artifact_and_schema_errors_name_the_field(dataset: Path) -> None:
    case = _first_case(dataset)
    meta = json.loads((case / "case.json").read_text())
    stored = next(a["stored_as"] for a in meta["artifacts"] if a["stored_as"])
    (case / "artifacts" / stored).unlink()
    fields = _fields(dataset)
    assert any(c == case.name and f.startswith("case.json:artifacts.") for c, f in fields)
    meta["domain"] = "astrology"
    (case / "case.json").write_text(json.dumps(meta))
    assert (case.name, "case.json:domain") in _fields(dataset)


def test_limits_are_configurable(dataset: Path) -> None:
    assert validate_dataset(dataset, ValidationLimits(max_steps=1000)) == []
    tight = validate_dataset(dataset, ValidationLimits(max_steps=5, max_trajectory_tokens=500))
    messages = {i.message for i in tight}
    assert any("over the limit of 5" in m for m in messages)
    assert any("over the limit of 500" in m for m in messages)


def test_missing_dataset_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="dataset folder not found"):
        validate_dataset(tmp_path / "nope")


def test_package_problems_flag_an_artifact_reaching_the_labels(tmp_path: Path) -> None:
    ds = casebuilder.summing_dataset(tmp_path / "ds", {"c-fail": 41, "c-pass": 42})
    assert package_problems(ds.case("c-pass"), ds.root) == []
    casebuilder.point_artifact_at(ds.case("c-fail").root, "../../../labels.jsonl")
    problems = package_problems(ds.case("c-fail"), ds.root)
    assert [(p.field, p.message) for p in problems] == [
        ("case.json:artifacts.0", "stored_as '../../../labels.jsonl' is not a file inside "
                                  "artifacts/")]
    assert any("not a file inside artifacts/" in str(i) for i in validate_dataset(ds.root))
