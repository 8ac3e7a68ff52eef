"""The README's typical workflow, run line by line as written on the real SkillsBench sample, in
a scratch folder laid out like the repository (its .venv, judgeskills/ and ../shared). Lines
that need an API key are run without one: each must stop at once with one line naming the key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SHARED

KEY_PREFIX = "ANTHROPIC_API_KEY=... "


def workflow_lines() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## A typical workflow"):]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the README's workflow is a bash block"
    joined = block.group(1).replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_readme_workflow_runs_as_written_on_the_real_sample(
    real_data: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "judge-runner").symlink_to(
        Path(sys.executable).parent / "judge-runner")
    (repo / "judgeskills").symlink_to(REPO / "judgeskills")
    (tmp_path / "shared").symlink_to(SHARED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    setup, *commands = workflow_lines()
    assert setup.startswith("jr=.venv/bin/judge-runner S=../shared/data/skillsbench-real")
    assert len(commands) >= 10
    for command in commands:
        needs_key = command.startswith(KEY_PREFIX)
        script = f"{setup}\n{command.removeprefix(KEY_PREFIX)}"
        done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        if needs_key:
            assert done.returncode == 2, (command, done.stderr)
            (line,) = done.stderr.splitlines()
            assert line.startswith("error: ") and "ANTHROPIC_API_KEY is not set" in line
        else:
            assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
            assert "Traceback" not in done.stderr
    assert (repo / "data" / "pool" / "bench" / "gate.txt").is_file()
    for page in ("runs/rules/report.html", "runs/rules-v1/view/compare.html",
                 "runs/pool/verdicts.jsonl", "runs/select/select.html"):
        assert (repo / page).is_file(), page


@pytest.mark.parametrize("ignored", ["data/pool/labels.jsonl", "runs/rules/metrics.json"])
def test_what_the_workflow_writes_is_git_ignored(ignored: str) -> None:
    done = subprocess.run(["git", "check-ignore", "-q", ignored], cwd=REPO, check=False,
                          capture_output=True)
    assert done.returncode == 0, f"{ignored} is not ignored by .gitignore"
