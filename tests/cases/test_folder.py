"""Recognising a case folder (what `sandbox exec` accepts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases.folder import NotACaseFolderError, case_folder
from tests.casebuilder import answer_dataset, mixed_answers


def test_a_case_folder_and_a_link_to_one_are_accepted(tmp_path: Path) -> None:
    root = answer_dataset(tmp_path / "ds", mixed_answers(1))
    case_dir = root / "cases" / "case-000"
    assert case_folder(case_dir).root == case_dir.resolve()
    (tmp_path / "link").symlink_to(case_dir)
    assert case_folder(tmp_path / "link").root == case_dir.resolve()


def test_a_link_is_judged_by_where_it_leads(tmp_path: Path) -> None:
    root = answer_dataset(tmp_path / "ds", mixed_answers(1))
    (root / "evidence" / "case-000").mkdir(parents=True)
    disguised = root / "cases" / "case-001"
    disguised.symlink_to(root / "evidence" / "case-000")
    with pytest.raises(NotACaseFolderError, match="not inside a dataset's cases/ folder"):
        case_folder(disguised)


def test_a_case_json_link_is_refused(tmp_path: Path) -> None:
    root = answer_dataset(tmp_path / "ds", mixed_answers(2))
    folder = root / "cases" / "case-001"
    (folder / "case.json").unlink()
    (folder / "case.json").symlink_to(root / "cases" / "case-000" / "case.json")
    with pytest.raises(NotACaseFolderError, match=r"holds no case\.json"):
        case_folder(folder)
