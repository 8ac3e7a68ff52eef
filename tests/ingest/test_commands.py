"""The real `judge-runner` CLI on the bundled examples: import, validate, show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES, REPO

JR = [str(Path(sys.executable).parent / "judge-runner")]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JR, *args], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_import_validate_show(tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    done = _run("import", str(EXAMPLES / "trials"), "--tasks", str(EXAMPLES / "tasks"),
                "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "imported 12, skipped 0, failed 0" in done.stderr
    valid = _run("validate", str(out))
    assert valid.returncode == 0 and "ok: 12 case(s) valid" in valid.stdout
    case = next(p for p in sorted((out / "cases").iterdir()) if p.name.startswith("ssh-"))
    shown = _run("show", str(case))
    assert shown.returncode == 0, shown.stderr
    for expected in ("instruction", "auth-log-analysis", "trajectory", "artifacts"):
        assert expected in shown.stdout


def test_failures_set_the_exit_code(tmp_path: Path) -> None:
    (tmp_path / "t" / "agent").mkdir(parents=True)
    (tmp_path / "t" / "agent" / "claude-code.txt").write_text("hello\n")
    done = _run("import", str(tmp_path / "t"), "--tasks", str(EXAMPLES / "tasks"),
                "--out", str(tmp_path / "out"))
    assert done.returncode == 1 and "missing result.json" in done.stderr
    bad = _run("validate", str(tmp_path / "missing"))
    assert bad.returncode == 2
