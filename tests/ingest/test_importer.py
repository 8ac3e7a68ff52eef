"""The importer on bad input: every broken trial gets a clear reason, the rest still imports,
and nothing is ever written outside --out."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from judge_runner.cases import CasePackage, Dataset, validate_dataset
from judge_runner.ingest import (
    ImportOptions,
    OutputDirError,
    TrialReport,
    TrialStatus,
    import_trials,
)
from tests.ingest.helpers import (
    good_run,
    init_event,
    make_task,
    make_trial,
    result,
    stream,
    text,
    tool_result,
    tool_use,
    writing_run,
)

GOOD = good_run()


def _snapshot(root: Path, skip: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not p.is_symlink() and skip not in p.parents}


def _imported(batch: tuple[Path, Path], out: Path, trial: str) -> tuple[TrialReport, CasePackage]:
    """Import the whole batch into `out`; the report entry and the case of one trial."""
    trials, tasks = batch
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entry = next(t for t in report.trials if t.trial_path.endswith(trial))
    return entry, Dataset(out).case(str(entry.case_id))


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One batch of good and broken trials, shared (read-only) by the tests of this module."""
    tmp_path = tmp_path_factory.mktemp("batch")
    trials, tasks = tmp_path / "trials", tmp_path / "tasks"
    make_task(tasks)
    make_trial(trials, "good", GOOD)
    garbled = GOOD.replace('{"type": "assistant", "message": {"role": "assistant", "content": '
                           '[{"type": "text"', '{"type": "assistant", "mess', 1)
    make_trial(trials, "garbled", garbled + '{"type": "user", "message": {"ro\n\x07\x1b[31m\n')
    make_trial(trials, "no-result-json", GOOD, with_result=False)
    make_trial(trials, "unknown-format", "User: solve it\nAssistant: done\n")
    make_trial(trials, "binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    make_trial(trials, "no-transcript", None)
    make_trial(trials, "bad-result", GOOD)
    (trials / "bad-result" / "result.json").write_text('{"task_name": "demo-task", ')
    make_trial(trials, "unlabeled", GOOD, reward=None)
    make_trial(trials, "missing-task", GOOD, task="no-such-task")
    escaping = writing_run({"../../../../../../outside.txt": "A", "/etc/cron.d/evil": "B",
                            "/root/../../../tmp/x/../../y.txt": "C"}, cwd="/root/work")
    folder = make_trial(trials, "escaping-paths", escaping)
    (folder / "artifacts").mkdir()
    (folder / "artifacts" / "plot.png").write_bytes(b"\x89PNG\x00\xff" * 100)
    victim = tmp_path / "victim.txt"
    victim.write_text("do not touch")
    os.symlink(victim, folder / "artifacts" / "link.txt")
    os.symlink(tmp_path, folder / "artifacts" / "linked-dir")
    huge = "y" * (50 * 1024 * 1024)
    make_trial(trials, "huge-output", stream(
        init_event([]), tool_use("h", "Bash", {"command": "cat big.log"}),
        tool_result("h", huge, structured={"stdout": huge}), text("ok"), result("ok")))
    return trials, tasks


def test_bad_trials_fail_with_reasons_and_the_rest_imports(tmp_path: Path,
                                                           batch: tuple[Path, Path]) -> None:
    trials, tasks = batch
    base = trials.parent
    out = base / "out"
    before = _snapshot(base, out)
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = {t.trial_path.split("/", 1)[1]: t for t in report.trials}
    reasons = {k: (v.status, v.reason) for k, v in entries.items()}

    assert reasons["good"] == (TrialStatus.IMPORTED, None)
    assert entries["garbled"].status is TrialStatus.IMPORTED
    assert any("line 6: truncated or malformed JSON" in w for w in entries["garbled"].warnings)
    assert any("line 4: truncated or malformed JSON" in w for w in entries["garbled"].warnings)
    assert reasons["no-result-json"] == (TrialStatus.FAILED, "missing result.json")
    assert "unknown transcript format in agent/claude-code.txt" in str(
        reasons["unknown-format"][1])
    assert "binary (NUL byte at offset" in str(reasons["binary"][1])
    assert "no transcript" in str(reasons["no-transcript"][1])
    assert "result.json is not valid JSON (line 1" in str(reasons["bad-result"][1])
    assert "no numeric verifier_result.rewards.reward" in str(reasons["unlabeled"][1])
    assert "task folder 'no-such-task'" in str(reasons["missing-task"][1])
    assert entries["escaping-paths"].status is TrialStatus.IMPORTED
    assert entries["huge-output"].status is TrialStatus.IMPORTED
    assert report.count(TrialStatus.IMPORTED) == 4 and report.count(TrialStatus.FAILED) == 7

    # nothing outside --out changed or appeared
    assert _snapshot(base, out) == before
    assert not (base.parent / "outside.txt").exists()
    assert validate_dataset(out) == []
    written = json.loads((out / "import_report.json").read_text())
    assert len(written["trials"]) == 11


def test_escaping_paths_and_symlinks_stay_inside_artifacts(tmp_path: Path,
                                                           batch: tuple[Path, Path]) -> None:
    out = tmp_path / "out"
    entry, case = _imported(batch, out, "escaping-paths")
    paths = {a.path: a for a in case.meta.artifacts}
    assert paths["/outside.txt"].stored_as == "outside.txt"
    assert paths["/etc/cron.d/evil"].stored_as == "etc/cron.d/evil"
    assert paths["/y.txt"].stored_as == "y.txt"
    assert paths["plot.png"].provenance.value == "copied"  # binary artifact copied as bytes
    assert (case.artifacts_dir / "plot.png").read_bytes() == b"\x89PNG\x00\xff" * 100
    assert "link.txt" not in paths and "linked-dir" not in " ".join(paths)
    assert "artifacts/link.txt: symlink to a regular file, skipped" in " ".join(entry.warnings)
    assert "artifacts/linked-dir: symlink to a directory, skipped" in " ".join(entry.warnings)
    for path in case.root.rglob("*"):
        assert not path.is_symlink()
        assert path.resolve().is_relative_to(out.resolve())


def test_fifty_megabyte_output_is_cut_with_a_marker(tmp_path: Path,
                                                    batch: tuple[Path, Path]) -> None:
    _, case = _imported(batch, tmp_path / "out", "huge-output")
    step = case.trajectory.steps[0]
    assert step.output is not None and len(step.output) < 3000
    assert f"[... {50 * 1024 * 1024 - 2000} characters omitted ...]" in step.output
    assert (case.root / "trajectory.json").stat().st_size < 10_000
    assert case.meta.stats.raw_chars > 50 * 1024 * 1024


def test_one_huge_line_is_held_twice_not_three_times(tmp_path: Path) -> None:
    """A transcript that is one 32 MiB tool result on one line: while the line is parsed, the
    importer holds it as text and as parsed JSON, never as its bytes too (Python's own
    allocations, traced; docs/benchmarks.md has the process's peak RSS at 300 MiB)."""
    size = 32 * 1024 * 1024
    make_task(tmp_path / "tasks")
    line = stream(init_event([]), tool_use("h", "Bash", {"command": "python3 dump.py"}),
                  tool_result("h", "z" * size, structured={"stdout": ""}), result("ok"))
    make_trial(tmp_path / "trials", "one-line", line)
    del line
    tracemalloc.start()
    try:
        report = import_trials([tmp_path / "trials"], tmp_path / "out",
                               ImportOptions(task_dirs=[tmp_path / "tasks"]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.trials[0].status is TrialStatus.IMPORTED, report.trials[0].reason
    assert 2 * size <= peak < 2.25 * size, peak / size


def test_unlabeled_pools_import_without_labels(tmp_path: Path, batch: tuple[Path, Path]) -> None:
    trials, tasks = batch
    out = tmp_path / "out"
    report = import_trials([trials / "unlabeled"], out,
                           ImportOptions(task_dirs=[tasks], require_label=False))
    assert report.count(TrialStatus.IMPORTED) == 1
    assert not (out / "labels.jsonl").exists() and Dataset(out).labels() == {}


def test_out_folder_rules(tmp_path: Path, batch: tuple[Path, Path]) -> None:
    trials, tasks = batch
    opts = ImportOptions(task_dirs=[tasks])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(OutputDirError, match="refusing to write there"):
        import_trials([trials / "good"], foreign, opts)
    assert (foreign / "notes.txt").read_text() == "mine"

    # an earlier dataset whose cases/ was swapped for a symlink: the link goes, its target stays
    out = tmp_path / "out"
    import_trials([trials / "good"], out, opts)
    victim = tmp_path / "victim-dir"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep")
    import_shutil = __import__("shutil")
    import_shutil.rmtree(out / "cases")
    os.symlink(victim, out / "cases")
    import_trials([trials / "good"], out, opts)
    assert (victim / "keep.txt").read_text() == "keep" and not (out / "cases").is_symlink()


def test_run_without_skills_gets_none_and_unmapped_category_is_reported(
        tmp_path: Path) -> None:
    trials, tasks = tmp_path / "trials", tmp_path / "tasks"
    make_task(tasks, category="underwater-basket-weaving")
    make_trial(trials, "no-skills", GOOD.replace('"skills": ["demo-skill"]', '"skills": []'))
    make_trial(trials, "with-skills", GOOD)
    out = tmp_path / "out"
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    assert report.unmapped_categories == ["underwater-basket-weaving"]
    metas = {t.trial_path.split("/")[-1]: Dataset(out).case(str(t.case_id)).meta
             for t in report.trials}
    assert metas["no-skills"].skills == [] and not metas["no-skills"].with_skills
    assert not (out / "cases" / metas["no-skills"].id / "skills").exists()
    assert metas["with-skills"].skills == ["demo-skill"]
    assert metas["with-skills"].domain is None
    assert all("unmapped category" in w for t in report.trials for w in t.warnings)


def test_atif_trial_imports_with_the_skills_it_used(tmp_path: Path) -> None:
    trials, tasks = tmp_path / "trials", tmp_path / "tasks"
    make_task(tasks, skills=("demo-skill", "unused-skill"))
    folder = make_trial(trials, "atif", None)
    doc = {"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "terminus",
                                                                        "version": "2"},
           "steps": [{"step_id": 1, "source": "user", "message": "task"},
                     {"step_id": 2, "source": "agent", "message": "",
                      "tool_calls": [{"tool_call_id": "k", "function_name": "Skill",
                                      "arguments": {"skill": "demo-skill"}}],
                      "observation": {"results": [{"source_call_id": "k",
                                                   "content": "# demo-skill body"}]}},
                     {"step_id": 3, "source": "agent", "message": "All done."}]}
    (folder / "agent" / "trajectory.json").write_text(json.dumps(doc))
    out = tmp_path / "out"
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    assert report.count(TrialStatus.IMPORTED) == 1
    case = Dataset(out).case(str(report.trials[0].case_id))
    assert case.meta.source.transcript_format == "atif"
    assert case.meta.skills == ["demo-skill"]
    assert case.trajectory.final_message == "All done."
    assert validate_dataset(out) == []
