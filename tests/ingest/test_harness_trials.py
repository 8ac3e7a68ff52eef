"""Every real trial of every harness imports, and reads the same way to every consumer.

The shared folders hold real SkillsBench runs: Claude Code (`skillsbench-real/`, stream-json),
terminus-2 (episode lists) and gemini-cli (ATIF) (`skillsbench-harnesses/`). The expectations
for the four terminus-2 / gemini-cli trials below were written by hand from reading their raw
files (responses, "Loaded skill" prompts, parse-error prompts, the one traceback, the heredocs
typed); those for the Claude Code trials are counted from the raw stream by a separate reader
in this module, not by the importer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge_runner.cases import CasePackage, Dataset, StepKind, TerminationStatus, validate_dataset
from tests.conftest import SHARED

pytestmark = pytest.mark.shared


@dataclass(frozen=True)
class Expected:
    label: str
    agent: str
    steps: int
    tool_calls: int
    errors: int
    skills_used: tuple[str, ...]
    skills_had: int
    skills_source: str
    reconstructed: tuple[str, ...]
    unknown: tuple[str, ...]
    final_starts: str
    task_complete: bool | None  # None: the format has no such flag


EXPECTED = {
    # terminus-2, gemini-3-pro: two skill loads in episode 0, then 7 analysis+command responses;
    # the last (task_complete) types an unquoted heredoc with $ in it: content unknown.
    "adaptive-cruise-control__2EwRXdJ": Expected(
        "pass", "terminus-2", 16, 7, 0, ("pid-controller", "vehicle-dynamics"), 5, "transcript",
        ("/acc_system.py", "/pid_controller.py", "/simulation.py", "/tune_pid.py"),
        ("/acc_report.md",), "The `simulation_results.csv` looks correct", True),
    # terminus-2, gemini-3-flash: 3 skill loads, 2 responses rejected as invalid JSON (kept as
    # text, each followed by an error notice), 28 analyses, 27 command batches, 1 traceback.
    "adaptive-cruise-control__nbEjinC": Expected(
        "fail", "terminus-2", 62, 27, 3, ("pid-controller", "yaml-config", "vehicle-dynamics"), 5,
        "transcript", ("/acc_report.md", "/acc_system.py", "/evaluate.py", "/pid_controller.py",
                       "/simulation.py", "/tuning_results.yaml"), (),
        "I have implemented the PID controller, the ACC system", True),
    # gemini-cli, gemini-3-flash: 8 messages, 5 reasonings, 7 shell calls; optimize.py from a
    # quoted heredoc followed by `python3 optimize.py`.
    "mars-clouds-clustering__dBN9AmC": Expected(
        "pass", "gemini-cli", 20, 7, 0, (), 3, "with_skills_job", ("/optimize.py",), (),
        "**Mars Cloud Clustering Optimization Complete**", None),
    # gemini-cli, gemini-3-pro: 5 messages, 4 reasonings, 7 calls, write_file of the script;
    # one read_file failed (44 MB over the 20 MB limit): an error only gemini-cli's own log keeps.
    "mars-clouds-clustering__db4eGzP": Expected(
        "fail", "gemini-cli", 16, 7, 1, (), 3, "with_skills_job", ("/root/optimize_clustering.py",),
        (), "I will execute the `optimize_clustering.py` script", None),
}


@pytest.fixture(scope="module")
def pool(every_harness: Path) -> Dataset:
    return Dataset(every_harness)


def _by_trial(pool: Dataset) -> dict[str, CasePackage]:
    return {c.meta.source.trial_name: c for c in pool.cases()}


def test_every_real_trial_of_every_harness_imports_and_validates(pool: Dataset) -> None:
    manifests = [json.loads((SHARED / "data" / d / "MANIFEST.json").read_text())
                 for d in ("skillsbench-real", "skillsbench-harnesses")]
    assert len(pool.case_ids()) == sum(len(m) for m in manifests) == 30
    assert validate_dataset(pool.root) == []
    agents = {c.meta.source.agent.split()[0] for c in pool.cases() if c.meta.source.agent}
    assert agents == {"claude-code", "terminus-2", "gemini-cli"}


@pytest.mark.parametrize("trial", sorted(EXPECTED))
def test_harness_trial_matches_its_hand_written_expectations(pool: Dataset, trial: str) -> None:
    want = EXPECTED[trial]
    case = _by_trial(pool)[trial]
    meta, traj = case.meta, case.trajectory
    assert pool.labels()[case.id].label.value == want.label
    assert (meta.source.agent or "").startswith(want.agent)
    kinds = [s.kind for s in traj.steps]
    assert (len(kinds), kinds.count(StepKind.TOOL_CALL)) == (want.steps, want.tool_calls)
    assert sum(s.is_error for s in traj.steps) == want.errors
    assert tuple(s.skill for s in traj.steps if s.kind is StepKind.SKILL_USE) == want.skills_used
    assert len(meta.skills) == want.skills_had and meta.with_skills
    assert meta.skills_source is not None and meta.skills_source.value == want.skills_source
    for name in meta.skills:
        assert (case.skills_dir / name / "SKILL.md").is_file()
    made = {a.path: a for a in meta.artifacts}
    assert tuple(sorted(p for p, a in made.items() if a.stored_as)) == want.reconstructed
    assert tuple(sorted(p for p, a in made.items() if not a.stored_as)) == want.unknown
    assert (traj.final_message or "").startswith(want.final_starts)
    if want.task_complete is not None:
        assert (traj.termination.result_subtype == "task_complete") is want.task_complete
        assert traj.termination.status is TerminationStatus.COMPLETED
    # the harness's own system prompt is never agent text
    assert not any("You are an AI assistant tasked with" in (s.text or "") for s in traj.steps)


def test_terminus_steps_read_like_any_harness(pool: Dataset) -> None:
    case = _by_trial(pool)["adaptive-cruise-control__nbEjinC"]
    steps = case.trajectory.steps
    calls = [s for s in steps if s.kind is StepKind.TOOL_CALL]
    assert all(s.tool == "terminal" and isinstance((s.arguments or {}).get("command"), str)
               for s in calls)
    assert calls[0].arguments == {"command": "ls -F\ncat vehicle_params.yaml\n"}
    assert calls[0].output is not None and "vehicle_params.yaml" in calls[0].output
    rejected = [s for s in steps if s.kind is StepKind.NOTICE and s.is_error]
    assert len(rejected) == 2 and all("Invalid JSON" in (s.output or "") for s in rejected)
    assert any("terminus-2 types keystrokes" in n for n in case.meta.notes)
    pid = next(a for a in case.meta.artifacts if a.path == "/pid_controller.py")
    assert pid.stored_as is not None
    assert "class PIDController" in (case.artifacts_dir / pid.stored_as).read_text()


def test_gemini_cli_shell_results_lose_their_framing(pool: Dataset) -> None:
    case = _by_trial(pool)["mars-clouds-clustering__db4eGzP"]
    shell = [s for s in case.trajectory.steps if s.tool == "run_shell_command"]
    assert shell and all(s.exit_code == 0 for s in shell)
    assert all(not (s.output or "").startswith("Command:") for s in shell)
    assert shell[-1].output is not None and shell[-1].output.strip() == "369"


def _raw_claude_code(trial: Path) -> tuple[int, int, str | None]:
    """tool_use blocks, error tool results and the final result text, read straight from the
    stream (independently of the importer)."""
    uses = errors = 0
    final = None
    for line in (trial / "agent" / "claude-code.txt").read_text().splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        content = (event.get("message") or {}).get("content") if isinstance(
            event.get("message"), dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                uses += 1
            if isinstance(block, dict) and block.get("type") == "tool_result" and \
                    block.get("is_error"):
                errors += 1
        if event.get("type") == "result" and isinstance(event.get("result"), str):
            final = event["result"] or None
    return uses, errors, final


def test_claude_code_trials_match_their_raw_streams(pool: Dataset, real_data: Path) -> None:
    cases = {c.meta.source.trial_name: c for c in pool.cases()
             if (c.meta.source.agent or "").startswith("claude-code")}
    assert len(cases) == 26
    for trial in sorted((real_data / "trials").rglob("claude-code.txt")):
        folder = trial.parent.parent
        case = cases[json.loads((folder / "result.json").read_text())["trial_name"]]
        uses, errors, final = _raw_claude_code(folder)
        steps = case.trajectory.steps
        called = sum(1 for s in steps if s.kind in (StepKind.TOOL_CALL, StepKind.SKILL_USE)
                     and s.tool_use_id)
        assert called == uses, case.id
        assert sum(s.is_error for s in steps) == errors, case.id
        assert case.meta.skills_source is not None
        assert case.meta.skills_source.value == "transcript", case.id
        if final is None:
            assert case.trajectory.termination.status is TerminationStatus.NO_RESULT, case.id
        else:
            assert (case.trajectory.final_message or "")[:500] == final[:500], case.id


def test_gemini_cli_trials_import_from_their_own_log_alone(pool: Dataset, tmp_path: Path) -> None:
    """A gemini-cli trial whose ATIF file is missing is read from gemini-cli's own session log:
    the same calls, errors, artifacts and final message as from the ATIF."""
    import shutil

    from judge_runner.ingest import ImportOptions, TrialStatus, import_trials

    harness = SHARED / "data" / "skillsbench-harnesses"
    trials = sorted((harness / "trials").rglob("gemini-cli.trajectory.json"))
    assert len(trials) == 2
    for own in trials:
        copy = tmp_path / "trials" / own.parent.parent.name
        shutil.copytree(own.parent.parent, copy)
        (copy / "agent" / "trajectory.json").unlink()
    report = import_trials([tmp_path / "trials"], tmp_path / "ds",
                           ImportOptions(task_dirs=[harness / "tasks"]))
    assert [t.status for t in report.trials] == [TrialStatus.IMPORTED] * 2
    by_trial = _by_trial(pool)
    for case in Dataset(tmp_path / "ds").cases():
        atif = by_trial[case.meta.source.trial_name]
        assert case.meta.source.transcript_format == "gemini-cli-session"

        def calls(c: CasePackage) -> list[tuple[str | None, bool, int | None]]:
            return [(s.tool, s.is_error, s.exit_code) for s in c.trajectory.steps
                    if s.kind is StepKind.TOOL_CALL]

        assert calls(case) == calls(atif)
        assert case.trajectory.final_message == atif.trajectory.final_message
        assert [a.path for a in case.meta.artifacts] == [a.path for a in atif.meta.artifacts]
