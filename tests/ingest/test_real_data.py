"""Importing the shared real SkillsBench trials: every manifest trial becomes a valid case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, Label, validate_dataset
from judge_runner.ingest import ImportOptions, TrialStatus, import_trials

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def imported(real_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "dataset"
    report = import_trials([real_data / "trials"], out,
                           ImportOptions(task_dirs=[real_data / "tasks"]))
    assert report.count(TrialStatus.FAILED) == 0, [t.reason for t in report.trials]
    return out


def test_every_manifest_trial_becomes_a_case_with_its_label(real_data: Path,
                                                            imported: Path) -> None:
    manifest = json.loads((real_data / "MANIFEST.json").read_text())
    report = json.loads((imported / "import_report.json").read_text())
    by_path = {t["trial_path"]: t for t in report["trials"]}
    labels = Dataset(imported).labels()
    assert len(manifest) == 26
    for item in manifest:
        entry = by_path[item["trial_dir"]]  # display path: <root name>/<relative path>
        assert entry["status"] == "imported"
        case_id = entry["case_id"]
        assert labels[case_id].label is Label(item["label"]), item["trial_dir"]
        assert labels[case_id].reward == item["reward"]
        meta = Dataset(imported).case(case_id).meta
        assert meta.task == item["task"]
        assert meta.with_skills is item["with_skills"]
    assert len(Dataset(imported).case_ids()) == len(manifest)


def test_every_real_case_validates(imported: Path) -> None:
    assert validate_dataset(imported) == []


def test_real_cases_carry_the_init_skills_and_a_domain(real_data: Path, imported: Path) -> None:
    for case in Dataset(imported).cases():
        meta = case.meta
        assert meta.domain is not None, meta.task
        assert meta.skills, meta.id
        for skill in meta.skills:
            assert (case.skills_dir / skill / "SKILL.md").is_file()


def test_timeouts_without_result_event_are_marked(imported: Path) -> None:
    statuses = {c.id: c.trajectory.termination.status.value for c in Dataset(imported).cases()}
    exo = [s for cid, s in statuses.items() if cid.startswith("exoplanet-detection-period")]
    assert exo == ["no_result", "no_result"]
