"""The documented plain run format: imported, validated, bad input reported per run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from judge_runner.cases import Dataset, StepKind, validate_dataset
from judge_runner.cli.root import app


def plain_run(root: Path, name: str, steps: list[dict[str, Any]],
              label: dict[str, Any] | None = None, **run: Any) -> Path:
    folder = root / name
    (folder / "artifacts" / "root").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"task": "sum-task", **run}))
    (folder / "instruction.md").write_text("Sum the numbers into /root/out.json.\n")
    (folder / "steps.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    (folder / "artifacts" / "root" / "out.json").write_text('{"total": 42}\n')
    (folder / "skills" / "summing").mkdir(parents=True)
    (folder / "skills" / "summing" / "SKILL.md").write_text("# summing\n")
    if label is not None:
        (folder / "label.json").write_text(json.dumps(label))
    return folder


STEPS: list[dict[str, Any]] = [
    {"kind": "skill_use", "tool": "Skill", "skill": "summing", "text": "# summing"},
    {"kind": "assistant_message", "text": "I will add them."},
    {"kind": "tool_call", "tool": "bash", "tool_use_id": "1",
     "arguments": {"command": "python3 -c 'print(1+2)'"}, "output": "3", "exit_code": 0},
    {"kind": "tool_call", "tool": "write_file", "tool_use_id": "2",
     "arguments": {"file_path": "/root/notes.md", "content": "# notes\n"}, "output": "ok"},
    {"kind": "tool_call", "tool": "bash", "tool_use_id": "3", "arguments": {"command": "false"},
     "output": "exit 1", "is_error": True, "exit_code": 1},
]


def test_plain_runs_import_like_any_harness(tmp_path: Path) -> None:
    plain_run(tmp_path / "runs", "r1", STEPS, {"reward": 1.0}, agent="my-agent 1.0",
              model="m-1", final_message="Total is 42.", skills=["summing"])
    plain_run(tmp_path / "runs", "r2", STEPS, {"label": "fail"})
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["import", "--format", "plain", str(tmp_path / "runs"),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert validate_dataset(out) == []
    data = Dataset(out)
    labels = {data.case(c).meta.source.trial_name: data.labels()[c].label.value
              for c in data.case_ids()}
    assert labels == {"r1": "pass", "r2": "fail"}
    case = next(c for c in data.cases() if c.meta.source.trial_name == "r1")
    assert [s.kind for s in case.trajectory.steps] == [
        StepKind.SKILL_USE, StepKind.ASSISTANT_MESSAGE, StepKind.TOOL_CALL, StepKind.TOOL_CALL,
        StepKind.TOOL_CALL]
    assert case.meta.skills == ["summing"] and case.meta.source.agent == "my-agent 1.0"
    assert case.trajectory.final_message == "Total is 42."
    assert case.trajectory.steps[4].is_error and case.trajectory.steps[4].exit_code == 1
    arts = {a.path: a.provenance.value for a in case.meta.artifacts}
    assert arts == {"root/out.json": "copied", "/root/notes.md": "reconstructed"}


def test_a_bad_run_fails_alone_naming_the_line(tmp_path: Path) -> None:
    plain_run(tmp_path / "runs", "good", STEPS, {"reward": 0.0})
    bad = plain_run(tmp_path / "runs", "bad", [{"kind": "tool_call"}], {"reward": 1.0})
    (bad / "steps.jsonl").write_text('{"kind": "assistant_message", "text": "a"}\n'
                                     '{"kind": "shout", "text": "b"}\n')
    plain_run(tmp_path / "runs", "nolabel", STEPS)
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["import", "--format", "plain", str(tmp_path / "runs"),
                                      "--out", str(out)])
    assert result.exit_code == 1
    report = {t["trial_path"]: t for t in
              json.loads((out / "import_report.json").read_text())["trials"]}
    assert report["runs/good"]["status"] == "imported"
    assert report["runs/bad"]["reason"].startswith("steps.jsonl line 2: kind:")
    assert "no label" in report["runs/nolabel"]["reason"]


def test_the_schema_command_prints_the_plain_format() -> None:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    schemas = json.loads(result.output)
    assert schemas["plain/run.json"]["required"] == ["task"]
    assert "kind" in schemas["plain/steps.jsonl (one per line)"]["properties"]
    assert "reward" in schemas["plain/label.json"]["properties"]


def test_options_of_another_format_are_refused(tmp_path: Path) -> None:
    for args in (["--format", "plain", "--tasks", str(tmp_path)],
                 ["--format", "plain", "--scorer", "x"],
                 ["--format", "yaml"]):
        result = CliRunner().invoke(app, ["import", str(tmp_path), "--out",
                                          str(tmp_path / "o"), *args])
        assert result.exit_code == 2, args
