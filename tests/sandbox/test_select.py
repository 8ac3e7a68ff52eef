"""Choosing a sandbox kind; the one-time warning that local is not isolation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from judge_runner.sandbox import SandboxError, open_sandbox, resolve_kind
from judge_runner.sandbox.engine import engine_answers
from tests.conftest import REPO
from tests.sandbox.conftest import Planted


def test_kinds() -> None:
    assert resolve_kind("local") == "local"
    assert resolve_kind("docker") == "docker"
    assert resolve_kind("auto") == ("docker" if engine_answers() else "local")
    with pytest.raises(SandboxError, match="unknown sandbox kind 'vm'"):
        resolve_kind("vm")


def test_local_warns_once_per_process(planted: Planted) -> None:
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from judge_runner import log\n"
        "from judge_runner.sandbox import open_sandbox\n"
        "log.configure()\n"
        "for _ in range(3):\n"
        "    with open_sandbox('local', Path(sys.argv[1])) as box:\n"
        "        assert box.exec('echo ok').stdout == 'ok\\n'\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(planted.case_dir)], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.count("sandbox.local_not_isolated") == 1
    assert done.stdout == ""


@pytest.mark.docker
def test_docker_kind_opens_an_isolated_sandbox(
    docker_engine: None, planted: Planted, test_labels: dict[str, str]
) -> None:
    with open_sandbox("docker", planted.case_dir, labels=test_labels) as box:
        assert box.kind == "docker"
        assert box.exec("id -u").stdout == "10001\n"
