"""Writing case packages: what `write_case` writes validates, agrees with the importer, and bad
parts are refused before anything is written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from judge_runner.cases import (
    ArtifactProvenance,
    CaseMeta,
    Dataset,
    Label,
    LabelRecord,
    Source,
    Termination,
    TerminationStatus,
    Trajectory,
    append_labels,
    validate_dataset,
    write_case,
)
from judge_runner.cases.write import case_stats, label_line, trajectory_json
from judge_runner.ingest import ImportOptions, import_trials
from tests.casebuilder import (
    GOOD_RUN,
    answer_dataset,
    bash,
    build_case,
    dev_pool,
    mixed_answers,
    mixed_certainty_dataset,
    msg,
    numbered,
    skill,
    summing_dataset,
    write,
)
from tests.checklist.helpers import write_runs
from tests.conftest import EXAMPLES
from tests.view.runs import hostile_dataset

SOURCE = Source(trial_path="trials/c1", trial_name="c1", transcript_format="test")


def _trajectory(case_id: str = "c1") -> Trajectory:
    steps = numbered([
        msg("Writing the report."),
        skill("docs", "Be brief."),
        write("/root/report.md", "né", output="ok", tool_use_id="t1"),
        bash("false", "exit 1", exit_code=1, tool_use_id="t2"),
    ])
    return Trajectory(case_id=case_id, source_format="test", steps=steps, final_message="Done.",
                      termination=Termination(status=TerminationStatus.COMPLETED))


def test_written_case_validates_with_stats_and_records_from_what_is_on_disk(
        tmp_path: Path) -> None:
    label = LabelRecord(case_id="c1", label=Label.FAIL, reward=0.0)
    case = write_case(tmp_path, task="report", instruction="Write /root/report.md.\n",
                      trajectory=_trajectory(), source=SOURCE,
                      skills={"docs": {"SKILL.md": "# docs\n", "ref/style.md": b"short\n"}},
                      artifacts={"/root/report.md": "né", "/root/raw.bin": b"\x00\xff"},
                      label=label)
    assert validate_dataset(tmp_path) == []
    meta = case.meta
    text = (case.root / "trajectory.json").read_text(encoding="utf-8")
    assert (meta.stats.n_steps, meta.stats.n_tool_calls, meta.stats.n_error_steps,
            meta.stats.n_skill_uses) == (4, 2, 1, 1)
    assert meta.stats.normalized_chars == meta.stats.raw_chars == len(text)
    assert meta.with_skills and meta.skills == ["docs"]
    assert (case.skills_dir / "docs" / "ref" / "style.md").read_bytes() == b"short\n"
    report, raw = sorted(meta.artifacts, key=lambda a: a.path, reverse=True)
    assert (report.path, report.stored_as, report.size, report.steps) == \
        ("/root/report.md", "root/report.md", 3, [2])
    assert report.sha256 == hashlib.sha256("né".encode()).hexdigest()
    assert report.provenance is ArtifactProvenance.COPIED
    assert (raw.size, raw.steps) == (2, [])
    assert Dataset(tmp_path).labels() == {"c1": label}


def test_raw_chars_can_be_given_and_labels_append(tmp_path: Path) -> None:
    case = write_case(tmp_path, task="t", instruction="Do it.\n", trajectory=_trajectory(),
                      source=SOURCE, raw_chars=1001)
    assert (case.meta.stats.raw_chars, case.meta.stats.raw_tokens_est) == (1001, 251)
    assert case.meta.skills == [] and not case.meta.with_skills
    append_labels(tmp_path, [LabelRecord(case_id="c1", label=Label.PASS, reward=1.0)])
    assert validate_dataset(tmp_path) == []
    append_labels(tmp_path, [LabelRecord(case_id="c1", label=Label.PASS, reward=1.0)])
    assert [i.message for i in validate_dataset(tmp_path)] == ["duplicate c1"]


@pytest.mark.parametrize("kwargs", [
    {"artifacts": {"/root/../../labels.jsonl": "x"}},
    {"artifacts": {"/": "x"}},
    {"artifacts": {"/root/a": "x", "root/a": "y"}},
    {"skills": {"../up": {"SKILL.md": "x"}}},
    {"skills": {"ok": {"../../case.json": "x"}}},
    {"label": LabelRecord(case_id="other", label=Label.PASS, reward=1.0)},
])
def test_bad_parts_are_refused_before_anything_is_written(tmp_path: Path,
                                                          kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        write_case(tmp_path, task="t", instruction="Do it.\n", trajectory=_trajectory(),
                   source=SOURCE, **kwargs)  # type: ignore[arg-type]
    assert not any(tmp_path.iterdir())


def test_an_existing_case_folder_is_not_overwritten(tmp_path: Path) -> None:
    write_case(tmp_path, task="t", instruction="Do it.\n", trajectory=_trajectory(),
               source=SOURCE)
    with pytest.raises(FileExistsError, match="c1"):
        write_case(tmp_path, task="t", instruction="Other.\n", trajectory=_trajectory(),
                   source=SOURCE)
    assert (tmp_path / "cases" / "c1" / "instruction.md").read_text() == "Do it.\n"


def test_rendering_and_stats_are_the_importers(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    case_dirs = sorted((out / "cases").iterdir())
    assert case_dirs
    for case_dir in case_dirs:
        text = (case_dir / "trajectory.json").read_text(encoding="utf-8")
        trajectory = Trajectory.model_validate_json(text)
        meta = CaseMeta.model_validate_json((case_dir / "case.json").read_text(encoding="utf-8"))
        assert trajectory_json(trajectory) == text
        assert case_stats(trajectory, text, meta.stats.raw_chars) == meta.stats


def test_every_test_dataset_builder_writes_valid_packages(tmp_path: Path) -> None:
    built = [
        answer_dataset(tmp_path / "runs", mixed_answers(6)),
        summing_dataset(tmp_path / "judges", {"a": 42, "b": 41}, filler_steps=3).root,
        write_runs(tmp_path / "checklist"),
        dev_pool(tmp_path / "evolve", n_tasks=2, per_task=4, gate_fail=2, gate_pass=1)[0],
        build_case(tmp_path / "rules", GOOD_RUN, artifacts={"/root/out.json": b'{"total": 6}'})
        .root.parent.parent,
        mixed_certainty_dataset(tmp_path / "mixed"),
        hostile_dataset(tmp_path / "hostile").root,
    ]
    for root in built:
        assert validate_dataset(root) == [], root


@pytest.mark.parametrize("reward", [float("nan"), float("inf"), float("-inf")])
def test_labels_are_strict_json(reward: float) -> None:
    with pytest.raises(ValueError):
        LabelRecord(case_id="c", label=Label.FAIL, reward=reward)
    record = LabelRecord.model_construct(case_id="c", label=Label.FAIL, reward=reward)
    with pytest.raises(ValueError, match="not JSON compliant"):
        label_line(record)
