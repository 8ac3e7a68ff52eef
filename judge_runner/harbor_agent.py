"""`JudgeAgent`: our agent judge as a Harbor agent.

Use it as `harbor run -a judge_runner.harbor_agent:JudgeAgent -m MODEL ...`.

The judge loop runs on the host with our model client; only its tools (bash, read_file) run in
the trial's container, through `environment.exec`, as the image's non-root `judge` user. For one
trial it:

1. (setup, as root) makes the agent and verifier log dirs root-owned and not writable by the
   judge's user, so nothing the judge runs can plant a verdict, a reward or a symlink there, and
   gives the judge's user its writable /scratch;
2. copies the case package (/case) and the JudgeSkill (Harbor's skills dir) out of the container
   — the task, not the host, says what is judged and with which skill;
3. judges the case with the agent judge (`judge_runner.judges.agent`), writing plan.md,
   inspection_log.jsonl, verdict.json and transcript.jsonl into the trial's `agent/judge/`
   (uploaded to /logs/agent/judge when that dir is not a mount), plus `judge_config.json`;
4. kills whatever the judge's commands left running, before Harbor copies the label in;
5. writes `agent/trajectory.json` (ATIF) and fills Harbor's token/cost context.

The instruction Harbor passes is not used: the agent judge renders its own prompt from the case.
A judge failure is an `error` verdict (the verifier then writes no reward); a failure to read the
case out of the container raises, which Harbor records as the trial's exception.

Agent kwargs (`--ak key=value`): api_base (Messages API root; default $ANTHROPIC_BASE_URL),
allow_abstain (false), and the agent judge's budgets: max_turns, max_total_tokens, max_wall_s,
max_invalid, max_nudges, max_output_tokens; timeout_s (per model call).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.agents.capabilities import AgentCapabilities
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory

from judge_runner import __version__
from judge_runner.cases import CasePackage
from judge_runner.core import Verdict
from judge_runner.harbor import layout
from judge_runner.harbor.atif import build_trajectory, prompt_tokens, read_calls
from judge_runner.harbor.sandbox import HarborEnvironment, trial_environment
from judge_runner.judges import NO_SKILL, TRANSCRIPT_FILE, AgentJudge, JudgeOptions, build_judge
from judge_runner.sandbox import SCRATCH_DIR, SandboxKind

_BUDGET_KEYS = ("max_turns", "max_total_tokens", "max_wall_s", "max_invalid", "max_nudges",
                "max_output_tokens", "timeout_s")
# Log dirs: root's, read-only for the judge. /scratch: the judge's home and working space, as in
# the Docker sandbox (the image creates it root-owned; a task image cannot RUN chown).
_SETUP = (
    "mkdir -p {products} /logs/verifier {scratch}"
    " && chown root:root /logs/agent {products} /logs/verifier"
    " && chmod 0755 /logs/agent {products} /logs/verifier"
    " && chown {user}: {scratch} && chmod 0700 {scratch}"
)
# Bound of each of the agent's own commands in the container (setup, skills-dir probe, final
# kill). A hang guard, not a speed limit: on a loaded engine one `docker compose exec` can take
# tens of seconds before its command starts, so Harbor's 10 s `is_dir` probe is not used.
CONTROL_EXEC_TIMEOUT_S = 300
_IS_DIR, _NOT_DIR = "jr-is-dir", "jr-not-dir"


class JudgeAgent(BaseAgent):  # type: ignore[misc]  # Harbor ships no type information
    capabilities = AgentCapabilities(skills=True, atif=True)

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *args: Any,
        api_base: str | None = None,
        allow_abstain: bool | str = False,
        **kwargs: Any,
    ) -> None:
        budgets = {k: _number(kwargs.pop(k)) for k in _BUDGET_KEYS if k in kwargs}
        super().__init__(logs_dir, model_name, *args, **kwargs)
        self._api_base = api_base
        self._allow_abstain = _flag(allow_abstain)
        self._budgets = budgets

    @staticmethod
    def name() -> str:
        return "judge-runner"

    def version(self) -> str:
        return __version__

    async def setup(self, environment: BaseEnvironment) -> None:
        result = await environment.exec(
            _SETUP.format(products=layout.PRODUCTS_DIR, scratch=SCRATCH_DIR,
                          user=layout.JUDGE_USER), user="root",
            timeout_sec=CONTROL_EXEC_TIMEOUT_S)
        if result.return_code != 0:
            raise RuntimeError(f"could not prepare the trial's directories: {result.stdout}")

    async def run(
        self, instruction: str, environment: BaseEnvironment, context: AgentContext
    ) -> None:
        products = self.logs_dir / layout.PRODUCTS_SUBDIR
        products.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="judge-runner-harbor-") as tmp:
            work = Path(tmp)
            case_dir = work / "case"
            await environment.download_dir(layout.CASE_DIR, case_dir)
            skill_dir = await self._download_skill(environment, work / "skills")
            judge = self._build_judge(skill_dir)
            (products / layout.CONFIG_FILE).write_text(
                json.dumps({"judge": judge.name, "config": judge.config()}, indent=2,
                           sort_keys=True, default=str) + "\n", encoding="utf-8")
            with trial_environment(environment, asyncio.get_running_loop()):
                verdict = await asyncio.to_thread(judge.judge, CasePackage(case_dir), products)
        # Nothing the judge started may still run when Harbor copies the label in for grading.
        await environment.exec(f"pkill -KILL -u {layout.JUDGE_USER} || true", user="root",
                               timeout_sec=CONTROL_EXEC_TIMEOUT_S)
        if not environment.is_path_mounted(PurePosixPath(layout.PRODUCTS_DIR), products):
            await environment.upload_dir(products, layout.PRODUCTS_DIR)
        self._write_trajectory(products / TRANSCRIPT_FILE)
        _fill_context(context, verdict)

    async def _download_skill(self, environment: BaseEnvironment, into: Path) -> Path | None:
        """The JudgeSkill folder from the task's skills dir; None when the task has none.

        Raises RuntimeError when the skills dir holds more than one skill (which to follow?),
        or when the container cannot say whether the skills dir exists.
        """
        if not self.skills_dir or not await _is_dir(environment, self.skills_dir):
            return None
        await environment.download_dir(self.skills_dir, into)
        skills = sorted(p for p in into.iterdir() if (p / "SKILL.md").is_file())
        if len(skills) > 1:
            names = ", ".join(p.name for p in skills)
            raise RuntimeError(f"{self.skills_dir} holds several skills ({names}); expected one")
        return skills[0] if skills else None

    def _build_judge(self, skill_dir: Path | None) -> AgentJudge:
        # A task exported without a JudgeSkill means judging without one. The sandbox is the
        # trial container: the judge image holding the case, as for `--sandbox docker`, which
        # is what the configuration records, so a Harbor run pairs with such an eval run
        # (verdict details say "harbor").
        options = JudgeOptions(skill=skill_dir or NO_SKILL, sandbox=SandboxKind.HARBOR,
                               model=_api_model(self.model_name), base_url=self._api_base,
                               allow_abstain=self._allow_abstain, extra=self._budgets)
        judge = build_judge("agent", options)
        if not isinstance(judge, AgentJudge):
            raise TypeError(f"the agent judge is registered as {type(judge).__name__}")
        return judge

    def _write_trajectory(self, transcript: Path) -> None:
        data = build_trajectory(read_calls(transcript), self.name(), self.version(),
                                self.session_id)
        if data is None:
            return
        trajectory = Trajectory.model_validate(data)  # Harbor's own schema check
        (self.logs_dir / "trajectory.json").write_text(
            json.dumps(trajectory.to_json_dict(), indent=2) + "\n", encoding="utf-8")


async def _is_dir(environment: HarborEnvironment, path: str) -> bool:
    """Whether `path` is a directory in the container. A failed probe (engine error, container
    gone) raises instead of passing for "no directory", which would judge without the skill."""
    quoted = shlex.quote(path)
    result = await environment.exec(
        f"if [ -d {quoted} ]; then echo {_IS_DIR}; else echo {_NOT_DIR}; fi",
        timeout_sec=CONTROL_EXEC_TIMEOUT_S)
    answer = {line.strip() for line in (result.stdout or "").splitlines()} & {_IS_DIR, _NOT_DIR}
    if result.return_code != 0 or len(answer) != 1:
        raise RuntimeError(f"could not check for {path} in the container (exit code "
                           f"{result.return_code}): {(result.stdout or '')[-500:]}")
    return answer == {_IS_DIR}


def _fill_context(context: AgentContext, verdict: Verdict) -> None:
    usage = verdict.usage
    context.n_input_tokens = prompt_tokens(usage)
    context.n_cache_tokens = usage.cache_read_input_tokens
    context.n_output_tokens = usage.output_tokens
    context.cost_usd = usage.cost_usd
    context.metadata = {"case_id": verdict.case_id, "decision": verdict.decision.value,
                        "error": verdict.error, "model_calls": usage.calls}


def _api_model(model_name: str | None) -> str | None:
    """`-m anthropic/claude-x` (Harbor's provider/model form) and `-m claude-x` name the same
    model for the Messages API; other names go through unchanged (e.g. for a proxy)."""
    if model_name is not None and model_name.startswith("anthropic/"):
        return model_name.removeprefix("anthropic/")
    return model_name


def _flag(value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    if value.lower() in ("1", "true", "yes"):
        return True
    if value.lower() in ("0", "false", "no"):
        return False
    raise ValueError(f"allow_abstain must be true or false, got {value!r}")


def _number(value: Any) -> int | float:
    """Agent kwargs may arrive as strings from the command line."""
    if isinstance(value, int | float):
        return value
    text = str(value)
    return float(text) if any(c in text for c in ".eE") else int(text)
