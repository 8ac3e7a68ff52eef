"""Dataset validation: each rule fires on a dataset broken in exactly that way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge_runner.cases import ValidationLimits, validate_dataset
from judge_runner.cases.validate import package_problems
from judge_runner.ingest import ImportOptions, import_trials
from tests.conftest import EXAMPLES
from tests.judges import casekit


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


def test_leaked_verifier_output_is_reported(dataset: Path) -> None:
    case = _first_case(dataset)
    evidence = dataset / "evidence" / case.name / "verifier" / "test-stdout.txt"
    (case / "artifacts" / "notes.log").write_bytes(evidence.read_bytes())
    (case / "ctrf.json").write_text("{}")
    issues = {(i.field, i.message) for i in validate_dataset(dataset)}
    assert ("ctrf.json", "label/verifier file inside cases/ (leak)") in issues
    assert ("artifacts/notes.log", "identical to a verifier evidence file (leak)") in issues


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
    ds = casekit.build_dataset(tmp_path / "ds", {"c-fail": 41, "c-pass": 42})
    assert package_problems(ds.case("c-pass"), ds.evidence_dir("c-pass")) == []
    casekit.point_artifact_at(ds.case("c-fail").root, "../../../labels.jsonl")
    problems = package_problems(ds.case("c-fail"), ds.evidence_dir("c-fail"))
    assert [(p.field, p.message) for p in problems] == [
        ("case.json:artifacts.0", "stored_as '../../../labels.jsonl' is not a file inside "
                                  "artifacts/")]
    assert any("not a file inside artifacts/" in str(i) for i in validate_dataset(ds.root))
