"""gemini-cli runs (ATIF): framed shell results, write_file/replace artifacts, skill use, and
which skills the agent had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge_runner.cases import Dataset, SkillsSource, StepKind
from judge_runner.ingest import ImportOptions, TrialStatus, import_trials
from judge_runner.ingest.gemini_cli import shell_result
from judge_runner.ingest.skills_rule import AgentSkills
from tests.ingest.helpers import make_task, make_trial


def framed(command: str, output: str, error: str = "(none)", code: str = "0") -> str:
    return (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: {error}\n"
            f"Exit Code: {code}\nSignal: 0\nBackground PIDs: NaN\nProcess Group PGID: 7")


def test_shell_framing_is_read_for_output_exit_code_and_error() -> None:
    ok = shell_result(framed("echo 'a\nDirectory: x'", "a\nDirectory: x"), "echo 'a\nDirectory: x'")
    assert ok is not None and (ok.output, ok.exit_code, ok.is_error) == ("a\nDirectory: x", 0,
                                                                          False)
    bad = shell_result(framed("false", "(empty)", code="1"), "false")
    assert bad is not None and (bad.output, bad.exit_code, bad.is_error) == ("", 1, True)
    killed = shell_result(framed("sleep 9", "(empty)", error="timed out", code="(none)"), None)
    assert killed is not None and killed.exit_code is None and killed.is_error
    assert killed.output == "Error: timed out"
    assert shell_result("plain text", "x") is None


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": cid, "function_name": name, "arguments": args}


def atif(*calls_and_results: tuple[dict[str, Any], str]) -> str:
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "task"}]
    for n, (c, out) in enumerate(calls_and_results, start=2):
        steps.append({"step_id": n, "source": "agent", "message": f"step {n}", "tool_calls": [c],
                      "observation": {"results": [{"source_call_id": c["tool_call_id"],
                                                   "content": out}]}})
    steps.append({"step_id": 99, "source": "agent", "message": "done"})
    return json.dumps({"schema_version": "ATIF-v1.2", "agent": {"name": "gemini-cli",
                                                                "version": "1"}, "steps": steps})


def gemini_trial(root: Path, job: str, text: str) -> Path:
    trial = make_trial(root / job, "t1", None)
    (trial / "agent" / "trajectory.json").write_text(text)
    return trial


RUN = atif(
    (call("a", "write_file", {"file_path": "/root/s.py", "content": "x = 1\ny = 2\n"}),
     "Successfully created and wrote to new file: /root/s.py."),
    (call("b", "replace", {"file_path": "/root/s.py", "old_string": "y = 2",
                           "new_string": "y = 3", "instruction": "fix"}),
     "Successfully modified file: /root/s.py (1 replacements)."),
    (call("c", "replace", {"file_path": "/root/old.txt", "old_string": "a", "new_string": "b"}),
     "Successfully modified file: /root/old.txt (1 replacements)."),
    (call("d", "activate_skill", {"name": "demo-skill"}), "<skill>body</skill>"),
    (call("e", "read_file", {"file_path": "/root/.agents/skills/other/SKILL.md"}), "# other"),
    (call("f", "run_shell_command", {"command": "cat << 'EOF' > out.txt\nhi\nEOF\npython3 go.py"}),
     framed("cat << 'EOF' > out.txt\nhi\nEOF\npython3 go.py", "(empty)")),
)


@pytest.mark.parametrize(("job", "option", "skills", "source"), [
    ("gemini-cli-pro-skills-demo-task-1a2b", AgentSkills.AUTO, ["demo-skill", "spare"],
     SkillsSource.WITH_SKILLS_JOB),
    ("gemini-cli-pro-noskills-demo-task-1a2b", AgentSkills.AUTO, [],
     SkillsSource.WITHOUT_SKILLS_JOB),
    ("some-job", AgentSkills.AUTO, ["demo-skill"], SkillsSource.USED),
    ("gemini-cli-pro-noskills-demo-task-1a2b", AgentSkills.TASK, ["demo-skill", "spare"],
     SkillsSource.OPTION),
    ("gemini-cli-pro-skills-demo-task-1a2b", AgentSkills.NONE, [], SkillsSource.OPTION),
])
def test_gemini_cli_run_imports_with_artifacts_skill_use_and_its_skills(
        tmp_path: Path, job: str, option: AgentSkills, skills: list[str],
        source: SkillsSource) -> None:
    make_task(tmp_path / "tasks", skills=("demo-skill", "spare"))
    gemini_trial(tmp_path / "trials", job, RUN)
    report = import_trials([tmp_path / "trials"], tmp_path / "ds",
                           ImportOptions(task_dirs=[tmp_path / "tasks"], agent_skills=option))
    assert report.trials[0].status is TrialStatus.IMPORTED, report.trials[0].reason
    case = Dataset(tmp_path / "ds").cases()[0]
    assert (case.meta.skills, case.meta.skills_source) == (skills, source)
    present = sorted(p.name for p in case.skills_dir.iterdir()) if case.skills_dir.is_dir() else []
    assert present == skills
    used = [(s.skill, s.tool) for s in case.trajectory.steps if s.kind is StepKind.SKILL_USE]
    assert used == [("demo-skill", "activate_skill"), ("other", "read_file")]
    arts = {a.path: a for a in case.meta.artifacts}
    assert (case.artifacts_dir / "root/s.py").read_text() == "x = 1\ny = 3\n"
    assert arts["/root/old.txt"].stored_as is None and "unknown" in (arts["/root/old.txt"].note
                                                                      or "unknown")
    assert (case.artifacts_dir / "out.txt").read_text() == "hi\n"
    assert "working directory" in (arts["/out.txt"].note or "")
    shell = next(s for s in case.trajectory.steps if s.tool == "run_shell_command")
    assert shell.exit_code == 0 and shell.files_touched == ["out.txt"]


def test_gemini_clis_own_log_restores_errors_and_the_content_before_an_edit(
        tmp_path: Path) -> None:
    make_task(tmp_path / "tasks")
    trial = gemini_trial(tmp_path / "trials", "job", RUN)
    own = {"messages": [{"type": "gemini", "toolCalls": [
        {"id": "c", "name": "replace", "status": "success",
         "resultDisplay": {"originalContent": "a = 0\n", "newContent": "b = 0\n",
                           "isNewFile": False}},
        {"id": "e", "name": "read_file", "status": "error",
         "result": [{"functionResponse": {"response": {"error": "File too large"}}}]}]}]}
    (trial / "agent" / "gemini-cli.trajectory.json").write_text(json.dumps(own))
    import_trials([tmp_path / "trials"], tmp_path / "ds",
                  ImportOptions(task_dirs=[tmp_path / "tasks"]))
    case = Dataset(tmp_path / "ds").cases()[0]
    assert (case.artifacts_dir / "root/old.txt").read_text() == "b = 0\n"
    read = next(s for s in case.trajectory.steps if s.tool_use_id == "e")
    assert read.is_error and (read.output or "").endswith("File too large")
    assert read.kind is StepKind.TOOL_CALL  # a failed SKILL.md read is no skill use


def test_a_job_folder_with_its_own_result_json_is_searched(tmp_path: Path) -> None:
    make_task(tmp_path / "tasks")
    job = tmp_path / "trials" / "job-1"
    gemini_trial(job.parent, job.name, RUN)
    (job / "result.json").write_text(json.dumps({"id": "j", "stats": {"n_trials": 1}}))
    report = import_trials([job], tmp_path / "ds", ImportOptions(task_dirs=[tmp_path / "tasks"]))
    assert [(t.trial_path, t.status) for t in report.trials] == [("job-1/t1",
                                                                   TrialStatus.IMPORTED)]
