"""Normalization: explicit truncation, nothing important lost, byte-identical output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.cases import Dataset, StepKind
from judge_runner.ingest import ImportOptions, NormalizeOptions, claude_code, import_trials
from judge_runner.ingest.normalize import SAME_AS_FINAL, normalize
from judge_runner.text import cut
from tests.conftest import EXAMPLES, REAL_DATA, require
from tests.ingest.helpers import init_event, result, stream, text, tool_result, tool_use


def test_cut_keeps_head_and_tail_and_says_how_much_is_gone() -> None:
    value = "A" * 500 + "MIDDLE" + "Z" * 500
    out, omitted = cut(value, 100)
    assert out.startswith("A" * 50) and out.endswith("Z" * 50)
    assert omitted == len(value) - 100
    assert f"[... {omitted} characters omitted ...]" in out
    assert cut("short", 100) == ("short", 0)


def test_long_fields_are_cut_with_markers_and_counted() -> None:
    big = "x" * 10_000 + "Traceback: the end"
    run = claude_code.parse(stream(
        init_event([]), tool_use("t1", "Bash", {"command": "c" * 5000}),
        tool_result("t1", big, is_error=True), text("done"), result("done")))
    traj = normalize(run, "c1", NormalizeOptions(max_output=200, max_argument=100))
    step = traj.steps[0]
    assert step.output is not None and step.output.endswith("Traceback: the end")
    assert step.omitted_chars == (len(big) - 200) + (5000 - 100)
    assert step.arguments is not None and "characters omitted" in step.arguments["command"]
    assert traj.steps[1].text == SAME_AS_FINAL and traj.final_message == "done"


def _raw_facts(transcript: Path) -> tuple[set[str], dict[str, str], int]:
    """Independently read a raw transcript: error result ids, write call ids → path, skill uses."""
    errors: set[str] = set()
    writes: dict[str, str] = {}
    skills = 0
    for line in transcript.read_text().splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        content = (event.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result" and block.get("is_error"):
                errors.add(block["tool_use_id"])
            if block.get("type") == "tool_use" and block["name"] in ("Write", "Edit", "MultiEdit"):
                writes[block["id"]] = block["input"]["file_path"]
            if block.get("type") == "tool_use" and block["name"] == "Skill":
                skills += 1
    return errors, writes, skills


@pytest.mark.parametrize("root", [EXAMPLES, REAL_DATA], ids=["examples", "real"])
def test_every_error_write_and_skill_use_survives(root: Path, tmp_path: Path) -> None:
    if root == REAL_DATA:
        require((REAL_DATA / "MANIFEST.json").is_file(),
                f"real SkillsBench trials not found at {REAL_DATA}")
    out = tmp_path / "ds"
    report = import_trials([root / "trials"], out, ImportOptions(task_dirs=[root / "tasks"]))
    by_trial = {t.case_id: t.trial_path for t in report.trials}
    checked_errors = checked_writes = 0
    for case in Dataset(out).cases():
        trial = root / by_trial[case.id]
        errors, writes, skills = _raw_facts(trial / "agent" / "claude-code.txt")
        steps = {s.tool_use_id: s for s in case.trajectory.steps if s.tool_use_id}
        for use_id in errors:
            assert steps[use_id].is_error and steps[use_id].output, (case.id, use_id)
            checked_errors += 1
        for use_id, path in writes.items():
            assert path in steps[use_id].files_touched, (case.id, use_id)
            checked_writes += 1
        assert sum(s.kind is StepKind.SKILL_USE for s in case.trajectory.steps) == skills
    assert checked_errors >= 3 and checked_writes >= 10  # the check really ran


def test_import_twice_gives_identical_bytes(tmp_path: Path) -> None:
    opts = ImportOptions(task_dirs=[EXAMPLES / "tasks"])
    first, second = tmp_path / "a", tmp_path / "b"
    import_trials([EXAMPLES / "trials"], first, opts)
    import_trials([EXAMPLES / "trials"], second, opts)
    files_a = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert files_a == files_b and len(files_a) > 50
    for rel in files_a:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel
    # re-importing into the same folder replaces it with the same bytes
    before = {rel: (first / rel).read_bytes() for rel in files_a}
    import_trials([EXAMPLES / "trials"], first, opts)
    assert {rel: (first / rel).read_bytes() for rel in files_a} == before
