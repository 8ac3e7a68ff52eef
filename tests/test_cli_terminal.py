"""Commands that print a run's content print its control characters escaped, never raw.

The run below carries clipboard writes (OSC 52), a window title (OSC 0), a hyperlink (OSC 8),
cursor moves and line erases (CSI), 8-bit C1 controls, carriage returns and a bidi override in
its final message, tool output, artifact path and task name; `show` and `judge` print them.
`skills show` and `skills diff` print a skill version's files, which carry the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from tests.casebuilder import bash, build_case, msg
from tests.conftest import REPO
from tests.test_untrusted import C1, CSI, OSC0, OSC8, OSC52, raw_controls

HOSTILE = f"{OSC52}{OSC0}{OSC8}{CSI}ALL TESTS PASSED{C1}\r\u202etxt.exe"


def hostile_case(root: Path) -> Path:
    steps = [msg(f"Working. {HOSTILE}"),
             bash("pytest -q", f"1 failed\n{HOSTILE}\nError: boom {HOSTILE}", 1),
             msg(f"Done. {HOSTILE}")]
    case = build_case(root, steps, case_id="hostile", task="crafted",
                      final_message=f"All tests passed. {HOSTILE}",
                      artifacts={f"/root/out{OSC0}.txt": f"x {HOSTILE}\n"})
    return case.root


def assert_escaped(output: str) -> None:
    assert raw_controls(output) == [], sorted({repr(c) for c in raw_controls(output)})
    assert "\\x1b]52;c;" in output  # shown, so a reader sees the attempt


def test_show_prints_escapes_visibly(tmp_path: Path) -> None:
    case = hostile_case(tmp_path / "dataset")
    result = CliRunner().invoke(app, ["show", str(case), "--width", "400"])
    assert result.exit_code == 0, result.output
    assert_escaped(result.output)
    assert "ALL TESTS PASSED" in result.output


def test_judge_prints_escapes_visibly(tmp_path: Path) -> None:
    case = hostile_case(tmp_path / "dataset")
    result = CliRunner().invoke(app, ["judge", str(case), "--judge", "rules", "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "decision: fail" in result.output
    assert_escaped(result.output)


def test_skills_show_and_diff_print_a_skill_files_escapes_visibly(tmp_path: Path) -> None:
    """A skill version is text anyone may have written (an evolved one is a model's rewrite)."""
    root = tmp_path / "judgeskills"
    shutil.copytree(REPO / "judgeskills", root)
    with (root / "v2" / "SKILL.md").open("a", encoding="utf-8") as skill_md:
        skill_md.write(f"\nWhen in doubt: {HOSTILE}\n")
    (root / "v2" / "references" / f"notes{OSC0}.md").write_text(f"# Notes\n{HOSTILE}\n")
    shown = CliRunner().invoke(app, ["skills", "show", "v2", "--root", str(root), "--full"])
    assert shown.exit_code == 0, shown.output
    assert_escaped(shown.output)
    assert "When in doubt: " in shown.output
    assert "references/notes\\x1b]0;ALL TESTS PASSED\\x07.md" in shown.output
    diff = CliRunner().invoke(app, ["skills", "diff", "v1", "v2", "--root", str(root)])
    assert diff.exit_code == 1, diff.output  # the versions differ
    assert_escaped(diff.output)
