"""JudgeAgent's options as Harbor hands them over (`-m`, `--ak key=value` strings)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from judge_runner.harbor import layout, upload
from tests.conftest import require


@pytest.fixture
def agent_module() -> ModuleType:
    require(importlib.util.find_spec("harbor") is not None, "harbor not installed")
    import judge_runner.harbor.agent as module

    return module


def test_agent_kwargs_from_the_command_line(agent_module: ModuleType, tmp_path: Path) -> None:
    agent = agent_module.JudgeAgent(tmp_path, "anthropic/claude-sonnet-4-5",
                                    api_base="http://127.0.0.1:9", allow_abstain="true",
                                    max_turns="12", max_wall_s="90.5")
    assert agent.name() == "judge-runner"
    assert agent._budgets == {"max_turns": 12, "max_wall_s": 90.5}
    assert agent._allow_abstain is True
    assert agent._inline_upload_bytes == upload.DEFAULT_INLINE_BYTES
    assert agent_module.JudgeAgent(tmp_path, "m", inline_upload_bytes="0")._inline_upload_bytes == 0
    assert agent_module._api_model(agent.model_name) == "claude-sonnet-4-5"
    assert agent_module._api_model("claude-sonnet-4-5") == "claude-sonnet-4-5"
    assert agent_module._api_model("proxy/some-model") == "proxy/some-model"


def test_bad_flags_are_refused(agent_module: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="allow_abstain"):
        agent_module.JudgeAgent(tmp_path, "m", allow_abstain="maybe")
    with pytest.raises(ValueError):
        agent_module.JudgeAgent(tmp_path, "m", max_turns="many")
    for bad in ("-1", "48k"):
        with pytest.raises(ValueError, match="inline_upload_bytes must be a whole number"):
            agent_module.JudgeAgent(tmp_path, "m", inline_upload_bytes=bad)


def test_the_setup_command_places_an_upload_only_for_prebuilt_tasks(
    agent_module: ModuleType,
) -> None:
    built = agent_module.setup_command("/skills", uploaded=False)
    prebuilt = agent_module.setup_command("/skills", uploaded=True)
    assert layout.UPLOAD_STAGING_DIR not in built
    assert prebuilt.endswith(built)  # the same preparation after the placement
    assert f"mv {layout.UPLOAD_STAGING_DIR}/case /case" in prebuilt
    assert f"mv {layout.UPLOAD_STAGING_DIR}/skills /skills" in prebuilt
    assert layout.IMAGE_PIDS_FILE in built  # the image's own processes, noted before judging


@pytest.mark.docker
def test_the_judge_process_sweep_spares_the_images_own_processes(judge_image: str) -> None:
    """In the judge image run as it is (its main process is the judge user's, under a shell,
    as Harbor's compose file starts it), the sweep kills what the judge left running and
    spares the main process, which would otherwise take the container down."""
    def root(script: str) -> str:
        done = subprocess.run(["docker", "exec", "-u", "root", container, "bash", "-c", script],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "--network", "none", judge_image, "sh", "-c",
         "sleep infinity; exit 0"], capture_output=True, text=True, check=True,
        timeout=120).stdout.strip()
    try:
        root(layout.record_image_processes())
        image_own = root(f"cat {layout.IMAGE_PIDS_FILE}").split()
        assert len(image_own) >= 1  # the main process's sleep
        subprocess.run(["docker", "exec", "-d", "-u", layout.JUDGE_USER, container, "sh", "-c",
                        "sleep 600 & sleep 600"], check=True, timeout=120)
        root(f"for i in $(seq 100); do [ $(pgrep -u {layout.JUDGE_USER} | wc -l) -gt "
             f"{len(image_own)} ] && break; sleep 0.1; done")
        assert int(root(f"echo {layout.count_judge_processes()}")) >= 2
        root(layout.kill_judge_processes())
        assert root(f"pgrep -u {layout.JUDGE_USER} || true").split() == image_own
        assert root(f"echo {layout.count_judge_processes()}").strip() == "0"
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, timeout=120)
