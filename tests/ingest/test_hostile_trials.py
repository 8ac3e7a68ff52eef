"""The importer on hostile trial folders: special files, verifier-side exceptions, path-like task
names, non-finite rewards, artifact paths the file system refuses, symlink loops. Each trial gets
a reason naming what was found, the batch goes on, and nothing of the verifier reaches a case."""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, validate_dataset
from judge_runner.ingest import (
    ImportOptions,
    ImportReport,
    TrialReport,
    TrialStatus,
    import_trials,
)
from tests.ingest.helpers import good_run, make_task, make_trial, writing_run

GOOD = good_run()
JR = str(Path(sys.executable).parent / "judge-runner")


def _by_name(report: ImportReport) -> dict[str, TrialReport]:
    return {t.trial_path.rsplit("/", 1)[-1]: t for t in report.trials}


def _limit_memory() -> None:
    # A device read until memory runs out must fail this child, not the machine.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _import_cli(trials: Path, tasks: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JR, "import", str(trials), "--tasks", str(tasks), "--out", str(out)],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_limit_memory)


def _char_device(path: Path) -> None:
    try:
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 5))  # S_IFCHR, the /dev/zero device
    except PermissionError as exc:
        pytest.skip(f"cannot create a character device here (mknod: {exc.strerror})")


def test_pipes_and_devices_are_skipped_and_the_batch_goes_on(tmp_path: Path) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    folder = make_trial(trials, "special", GOOD)
    (folder / "artifacts").mkdir()
    (folder / "artifacts" / "report.md").write_text("# findings\n")
    os.mkfifo(folder / "artifacts" / "pipe")
    os.mkfifo(folder / "verifier" / "pipe")
    _char_device(folder / "artifacts" / "zero")
    make_trial(trials, "good", GOOD)
    pipe_transcript = make_trial(trials, "pipe-transcript", None)
    os.mkfifo(pipe_transcript / "agent" / "claude-code.txt")
    pipe_result = make_trial(trials, "pipe-result", GOOD, with_result=False)
    os.mkfifo(pipe_result / "result.json")

    done = _import_cli(trials, tasks, out)
    assert done.returncode == 1, done.stderr  # the two trials without a readable file failed
    assert "imported 2, skipped 0, failed 2" in done.stderr
    entries = _by_name(ImportReport.model_validate_json((out / "import_report.json").read_text()))
    assert entries["special"].status is TrialStatus.IMPORTED
    warnings = " | ".join(entries["special"].warnings)
    assert "artifacts/pipe: named pipe (FIFO), skipped" in warnings
    assert "artifacts/zero: character device, skipped" in warnings
    assert "verifier/pipe: named pipe (FIFO), skipped" in warnings
    assert entries["good"].status is TrialStatus.IMPORTED
    assert entries["pipe-transcript"].reason == ("agent/claude-code.txt is a named pipe (FIFO), "
                                                 "not a regular file; refusing to read it")
    assert entries["pipe-result"].reason == ("result.json is not usable: named pipe (FIFO), not "
                                             "a regular file")
    case = Dataset(out).case(str(entries["special"].case_id))
    assert [a.path for a in case.meta.artifacts] == ["/root/out.txt", "report.md"]
    assert not (out / ".staging").exists()
    assert validate_dataset(out) == []


def test_a_verifier_exception_stays_in_evidence(tmp_path: Path) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    for name, exc_type in (("verifier-timeout", "VerifierTimeoutError"),
                           ("agent-timeout", "AgentTimeoutError")):
        folder = make_trial(trials, name, GOOD, reward=0.0)
        doc = json.loads((folder / "result.json").read_text())
        doc["exception_info"] = {"exception_type": exc_type,
                                 "exception_message": f"{exc_type} after 600.0 seconds",
                                 "exception_traceback": "Traceback: verifier.py line 9"}
        (folder / "result.json").write_text(json.dumps(doc))
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = _by_name(report)
    assert all(e.status is TrialStatus.IMPORTED for e in entries.values())

    verifier_case = Dataset(out).case(str(entries["verifier-timeout"].case_id))
    assert verifier_case.trajectory.termination.exception is None
    for path in verifier_case.root.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert b"Verifier" not in content and b"600.0 seconds" not in content, path
    evidence = Dataset(out).evidence_dir(verifier_case.root.name) / "exception_info.json"
    assert json.loads(evidence.read_text())["exception_type"] == "VerifierTimeoutError"

    agent_case = Dataset(out).case(str(entries["agent-timeout"].case_id))
    assert agent_case.trajectory.termination.exception == "AgentTimeoutError"
    assert not (Dataset(out).evidence_dir(agent_case.root.name) / "exception_info.json").exists()
    assert validate_dataset(out) == []


@pytest.mark.parametrize("task_name", ["../outside-task", "/abs/outside-task", "a/../../b", ".."])
def test_path_like_task_names_are_refused(tmp_path: Path, task_name: str) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    make_task(tmp_path, "outside-task")  # an instruction.md outside --tasks, never to be read
    (tmp_path / "abs").mkdir()
    make_task(tmp_path / "abs", "outside-task")
    folder = make_trial(trials, "sneaky", GOOD)
    doc = json.loads((folder / "result.json").read_text())
    doc["task_name"] = task_name.replace("/abs", str(tmp_path / "abs"))
    (folder / "result.json").write_text(json.dumps(doc))
    make_trial(trials, "good", GOOD)
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = _by_name(report)
    assert entries["good"].status is TrialStatus.IMPORTED
    assert entries["sneaky"].status is TrialStatus.FAILED
    assert "is not a plain task folder name" in str(entries["sneaky"].reason)
    assert len(Dataset(out).case_ids()) == 1


@pytest.mark.parametrize("reward", [math.nan, math.inf, -math.inf])
def test_non_finite_rewards_are_refused(tmp_path: Path, reward: float) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    make_trial(trials, "odd-reward", GOOD, reward=reward)  # json.dumps writes NaN / Infinity
    make_trial(trials, "good", GOOD)
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = _by_name(report)
    assert entries["odd-reward"].status is TrialStatus.FAILED
    assert "not a finite number" in str(entries["odd-reward"].reason)
    lines = (out / "labels.jsonl").read_text().splitlines()
    assert len(lines) == 1
    json.loads(lines[0], parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def test_artifact_paths_the_file_system_refuses_become_unknown(tmp_path: Path) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    long_name = "/root/" + "n" * 300 + ".txt"
    climbing = "/root/x\x00/../../etc"  # its `..` must not be resolved into a real `/etc`
    transcript = writing_run({"/root/bad\x00name.txt": "A", long_name: "B", "/root/out": "C",
                              "/root/out/inner.txt": "D", "/root/fine.txt": "E",
                              climbing: "F"})
    make_trial(trials, "bad-paths", transcript)
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    assert report.trials[0].status is TrialStatus.IMPORTED, report.trials[0].reason
    case = Dataset(out).case(str(report.trials[0].case_id))
    arts = {a.path: a for a in case.meta.artifacts}
    assert arts["/root/fine.txt"].stored_as == "root/fine.txt"
    assert arts["/root/out"].stored_as == "root/out"
    assert "/etc" not in arts
    for path, why in (("/root/bad\x00name.txt", "contains a NUL byte"),
                      (climbing, "contains a NUL byte"),
                      (long_name, "a path component is over 255 bytes"),
                      ("/root/out/inner.txt", "'root/out' is stored as a file")):
        assert arts[path].provenance.value == "unknown" and arts[path].stored_as is None
        assert why in str(arts[path].note), arts[path].note
    assert validate_dataset(out) == []


def test_symlink_loops_and_odd_result_files_are_named(tmp_path: Path) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    make_trial(trials, "good", GOOD)
    os.symlink("loop", trials / "loop")  # a link to itself
    elsewhere = tmp_path / "elsewhere"
    make_trial(elsewhere, "hidden", GOOD)
    os.symlink(elsewhere, trials / "linked")
    folder = make_trial(trials, "dir-result", GOOD, with_result=False)
    (folder / "result.json").mkdir()
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = _by_name(report)
    assert entries["good"].status is TrialStatus.IMPORTED
    assert (entries["loop"].status, entries["loop"].reason) == (
        TrialStatus.SKIPPED,
        "symlink loop, not followed (trial folders are never reached through symlinks)")
    assert entries["linked"].status is TrialStatus.SKIPPED
    assert str(entries["linked"].reason).startswith("symlink to a directory, not followed")
    assert entries["dir-result"].reason == ("result.json is not usable: directory, not a "
                                            "regular file")
    assert report.count(TrialStatus.IMPORTED) == 1


def test_a_looping_root_is_reported_not_crashed_on(tmp_path: Path) -> None:
    root = tmp_path / "self"
    os.symlink("self", root)
    report = import_trials([root], tmp_path / "out", ImportOptions(task_dirs=[]))
    assert [(t.status, t.reason) for t in report.trials] == [
        (TrialStatus.SKIPPED, f"{root}: symlink loop, not followed")]


def test_deeply_nested_json_is_a_bad_line_not_a_crash(tmp_path: Path) -> None:
    trials, tasks, out = tmp_path / "trials", tmp_path / "tasks", tmp_path / "out"
    make_task(tasks)
    nested = '{"type": "user", "message": ' + "[" * 200_000 + "]" * 200_000 + "}"
    make_trial(trials, "nested", GOOD + nested + "\n")
    atif = make_trial(trials, "nested-atif", None)
    (atif / "agent" / "trajectory.json").write_text("[" * 200_000 + "]" * 200_000)
    make_trial(trials, "good", GOOD)
    report = import_trials([trials], out, ImportOptions(task_dirs=[tasks]))
    entries = _by_name(report)
    assert entries["nested"].status is TrialStatus.IMPORTED
    assert "line 6: truncated or malformed JSON event skipped (nested too deeply)" in \
        entries["nested"].warnings
    assert entries["nested-atif"].status is TrialStatus.FAILED
    assert "nested too deeply" in str(entries["nested-atif"].reason)
    assert entries["good"].status is TrialStatus.IMPORTED
