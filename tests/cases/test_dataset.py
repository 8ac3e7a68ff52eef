"""CasePackage.artifact_file: the one way to reach an artifact's stored copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import ArtifactProvenance, ArtifactRecord, CasePackage


def _record(stored_as: str | None) -> ArtifactRecord:
    return ArtifactRecord(path="/root/out.txt", stored_as=stored_as,
                          provenance=ArtifactProvenance.COPIED)


@pytest.fixture
def case(tmp_path: Path) -> CasePackage:
    case_dir = tmp_path / "cases" / "c1"
    (case_dir / "artifacts" / "root").mkdir(parents=True)
    (case_dir / "artifacts" / "root" / "out.txt").write_text("answer 42\n")
    (tmp_path / "labels.jsonl").write_text('{"case_id":"c1","label":"fail","reward":0.0}\n')
    return CasePackage(case_dir)


def test_a_file_inside_artifacts_is_returned(case: CasePackage) -> None:
    path = case.artifact_file(_record("root/out.txt"))
    assert path is not None and path.read_text() == "answer 42\n"


@pytest.mark.parametrize("stored_as", [
    "../../../labels.jsonl", "root/../../../../labels.jsonl", "/etc/hostname", "missing.txt",
    "root", None, "",
])
def test_paths_outside_artifacts_missing_or_not_files_are_refused(
    case: CasePackage, stored_as: str | None
) -> None:
    assert case.artifact_file(_record(stored_as)) is None


def test_symlinks_are_refused_even_when_the_target_is_inside(case: CasePackage,
                                                             tmp_path: Path) -> None:
    art = case.artifacts_dir
    (art / "labels.txt").symlink_to(tmp_path / "labels.jsonl")
    (art / "inside.txt").symlink_to(art / "root" / "out.txt")
    (art / "linked").symlink_to(tmp_path)
    for stored_as in ("labels.txt", "inside.txt", "linked/labels.jsonl"):
        assert case.artifact_file(_record(stored_as)) is None, stored_as


def test_a_linked_artifacts_folder_is_refused(tmp_path: Path) -> None:
    case_dir = tmp_path / "cases" / "c1"
    case_dir.mkdir(parents=True)
    (tmp_path / "labels.jsonl").write_text("secret\n")
    (case_dir / "artifacts").symlink_to(tmp_path)
    assert CasePackage(case_dir).artifact_file(_record("labels.jsonl")) is None
