"""JudgeAgent's options as Harbor hands them over (`-m`, `--ak key=value` strings)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import require
from tests.harbor.hostenv import HostEnvironment, HostResult


@pytest.fixture
def agent_module() -> ModuleType:
    require(importlib.util.find_spec("harbor") is not None, "harbor not installed")
    import judge_runner.harbor_agent as module

    return module


def test_agent_kwargs_from_the_command_line(agent_module: ModuleType, tmp_path: Path) -> None:
    agent = agent_module.JudgeAgent(tmp_path, "anthropic/claude-sonnet-4-5",
                                    api_base="http://127.0.0.1:9", allow_abstain="true",
                                    max_turns="12", max_wall_s="90.5")
    assert agent.name() == "judge-runner"
    assert agent._budgets == {"max_turns": 12, "max_wall_s": 90.5}
    assert agent._allow_abstain is True
    assert agent_module._api_model(agent.model_name) == "claude-sonnet-4-5"
    assert agent_module._api_model("claude-sonnet-4-5") == "claude-sonnet-4-5"
    assert agent_module._api_model("proxy/some-model") == "proxy/some-model"


def test_bad_flags_are_refused(agent_module: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="allow_abstain"):
        agent_module.JudgeAgent(tmp_path, "m", allow_abstain="maybe")
    with pytest.raises(ValueError):
        agent_module.JudgeAgent(tmp_path, "m", max_turns="many")


def test_the_skills_dir_probe_tells_a_missing_dir_from_a_failed_probe(
    agent_module: ModuleType, tmp_path: Path
) -> None:
    env = HostEnvironment()
    assert asyncio.run(agent_module._is_dir(env, str(tmp_path))) is True
    assert asyncio.run(agent_module._is_dir(env, str(tmp_path / "no such dir"))) is False
    # A loaded engine may take tens of seconds per exec: the probe waits minutes, not seconds.
    assert env.timeouts == [agent_module.CONTROL_EXEC_TIMEOUT_S] * 2
    assert agent_module.CONTROL_EXEC_TIMEOUT_S >= 120
    with pytest.raises(RuntimeError, match="could not check for /skills"):
        asyncio.run(agent_module._is_dir(BrokenEnvironment(), "/skills"))


class BrokenEnvironment:
    """An exec as `docker compose exec` answers when the trial's container is gone."""

    async def exec(self, command: str, cwd: str | None = None,
                   env: dict[str, str] | None = None, timeout_sec: int | None = None,
                   user: str | int | None = None) -> HostResult:
        return HostResult(stdout='service "main" is not running', stderr=None, return_code=1)
