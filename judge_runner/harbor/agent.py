"""`JudgeAgent`: our agent judge as a Harbor agent.

Use it as `harbor run -a judge_runner.harbor.agent:JudgeAgent -m MODEL ...`.

The judge loop runs on the host with our model client; only its tools (bash, read_file) run in
the trial's container, through `environment.exec`, as the image's non-root `judge` user. For one
trial it:

1. (setup) in one root command: for a prebuilt task, places the case package and the JudgeSkill
   from the task's `upload/` folder at `/case` and in Harbor's skills dir, root's and read-only
   for the judge's user (a small upload travels inside that command as a gzipped tar, a larger
   one is uploaded first); notes the image's own processes of the judge's user; makes the agent
   and verifier log dirs root-owned and not writable by the judge's user, so nothing the judge
   runs can plant a verdict, a reward or a symlink there; gives the judge's user its writable
   /scratch;
2. judges the case with the agent judge (`judge_runner.judges.agent`), reading the case package
   and the JudgeSkill from the task folder on the host (the same files the container holds; the
   task, not the agent's options, says what is judged and with which skill), writing plan.md,
   inspection_log.jsonl, verdict.json and transcript.jsonl into the trial's `agent/judge/`,
   plus `judge_config.json`. Harbor brings that folder into the container's /logs/agent/judge
   itself before the verifier runs (a bind mount, or its upload of a host-side agent's logs);
3. writes `agent/trajectory.json` (ATIF) and fills Harbor's token/cost context.

Whatever the judge's commands left running is killed by the task's `test.sh`, as root, before it
reads anything; until then the label cannot reach it: Harbor copies `tests/` in only after the
judge has finished and its verdict is final, and the exported `tests/` folder is root's alone
(0700), which `docker compose cp` keeps.

The instruction Harbor passes is not used: the agent judge renders its own prompt from the case.
A judge failure is an `error` verdict (the verifier then writes no reward); a task folder without
a case package, or a failed upload or setup command, raises, which Harbor records as the trial's
exception.

Agent kwargs (`--ak key=value`): api_base (Messages API root; default $ANTHROPIC_BASE_URL),
allow_abstain (false), inline_upload_bytes (the largest compressed upload sent inside the setup
command, default 49152; 0 always uploads with the environment's own upload), and the agent
judge's budgets: max_turns, max_total_tokens, max_wall_s, max_invalid, max_nudges,
max_output_tokens; timeout_s (per model call).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import shlex
import threading
from pathlib import Path
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.agents.capabilities import AgentCapabilities
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import Trajectory

from judge_runner import __version__
from judge_runner.cases import CasePackage
from judge_runner.core import Verdict
from judge_runner.harbor import layout, upload
from judge_runner.harbor.atif import build_trajectory, prompt_tokens, read_calls
from judge_runner.harbor.sandbox import trial_environment
from judge_runner.judges import NO_SKILL, TRANSCRIPT_FILE, AgentJudge, JudgeOptions, build_judge
from judge_runner.sandbox import SCRATCH_DIR, SandboxKind

# The model SDK takes seconds to import on a slow machine. Harbor imports this module once per
# job, before its first trials start their containers: the SDK is loaded then, in a thread of its
# own, while those containers start, rather than by the first trial's judge (which would wait for
# it) or on Harbor's event loop (which would stall every trial's container calls). A judge that
# needs the SDK before it is loaded waits on Python's import lock.
_SDK_LOAD = threading.Thread(target=importlib.import_module, args=("anthropic",),
                             name="judge-runner-sdk-load", daemon=True)
_SDK_LOAD.start()

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
# A prebuilt task's upload, moved from the staging dir into place: root's, readable (never
# writable) by everyone else; symlinks are changed themselves, never followed.
_PLACE = (
    "rm -rf {case} {skills} && mkdir -p {staging}/case {staging}/skills"
    " && mv {staging}/case {case} && mv {staging}/skills {skills} && rm -rf {staging}"
    " && chown -R -h root:root {case} {skills} && chmod -R u=rwX,go=rX {case} {skills}"
)
# Bound of the agent's own command in the container (setup). A hang guard, not a speed limit:
# on a loaded engine one `docker compose exec` can take tens of seconds before its command starts.
CONTROL_EXEC_TIMEOUT_S = 300


def setup_command(skills_dir: str, uploaded: bool, archive: bytes | None = None) -> str:
    """The one root command of JudgeAgent's setup: place a prebuilt task's upload (when
    `uploaded`; unpacked from `archive` when given, else already copied to the staging dir),
    note the image's own processes of the judge's user, then prepare the log dirs and /scratch."""
    prepare = layout.record_image_processes() + " && " + _SETUP.format(
        products=layout.PRODUCTS_DIR, scratch=SCRATCH_DIR, user=layout.JUDGE_USER)
    if not uploaded:
        return prepare
    place = _PLACE.format(case=shlex.quote(layout.CASE_DIR), skills=shlex.quote(skills_dir),
                          staging=shlex.quote(layout.UPLOAD_STAGING_DIR))
    if archive is not None:
        place = f"{upload.unpack_command(archive, layout.UPLOAD_STAGING_DIR)} && {place}"
    return f"{place} && {prepare}"


class JudgeAgent(BaseAgent):  # type: ignore[misc]  # Harbor ships no type information
    capabilities = AgentCapabilities(skills=True, atif=True)

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        *args: Any,
        api_base: str | None = None,
        allow_abstain: bool | str = False,
        inline_upload_bytes: int | str = upload.DEFAULT_INLINE_BYTES,
        **kwargs: Any,
    ) -> None:
        budgets = {k: _number(kwargs.pop(k)) for k in _BUDGET_KEYS if k in kwargs}
        super().__init__(logs_dir, model_name, *args, **kwargs)
        self._api_base = api_base
        self._allow_abstain = _flag(allow_abstain)
        self._inline_upload_bytes = _byte_count(inline_upload_bytes)
        self._budgets = budgets
        self._files: layout.TaskFiles | None = None

    @staticmethod
    def name() -> str:
        return "judge-runner"

    def version(self) -> str:
        return __version__

    async def setup(self, environment: BaseEnvironment) -> None:
        self._files = self._task_files(environment)
        archive = None
        if self._files.uploaded:
            archive = upload.pack(self._files.root, self._inline_upload_bytes)
            if archive is None:
                await environment.upload_dir(self._files.root, layout.UPLOAD_STAGING_DIR)
        result = await environment.exec(
            setup_command(self.skills_dir or layout.SKILLS_DIR, self._files.uploaded, archive),
            user="root", timeout_sec=CONTROL_EXEC_TIMEOUT_S)
        if result.return_code != 0:
            raise RuntimeError(f"could not prepare the trial's container: {result.stdout}")

    async def run(
        self, instruction: str, environment: BaseEnvironment, context: AgentContext
    ) -> None:
        files = self._files or self._task_files(environment)
        products = self.logs_dir / layout.PRODUCTS_SUBDIR
        with trial_environment(environment, asyncio.get_running_loop()):
            # In a worker thread, all of it: other trials' container calls wait on this loop.
            verdict = await asyncio.to_thread(self._judge, files, products)
        # No upload of the products and no process sweep here: Harbor brings the trial's agent/
        # folder into /logs/agent before verifying, and test.sh kills what the judge left.
        self._write_trajectory(products / TRANSCRIPT_FILE)
        _fill_context(context, verdict)

    def _judge(self, files: layout.TaskFiles, products: Path) -> Verdict:
        products.mkdir(parents=True, exist_ok=True)
        judge = self._build_judge(files.skill_dir() if self.skills_dir else None)
        (products / layout.CONFIG_FILE).write_text(
            json.dumps({"judge": judge.name, "config": judge.config()}, indent=2,
                       sort_keys=True, default=str) + "\n", encoding="utf-8")
        return judge.judge(CasePackage(files.case_dir), products)

    @staticmethod
    def _task_files(environment: BaseEnvironment) -> layout.TaskFiles:
        """The case package and JudgeSkill of the trial's task, in its folder on the host (the
        parent of Harbor's environment dir): what the container holds or will be given."""
        try:
            files = layout.TaskFiles.find(Path(environment.environment_dir).parent)
            files.skill_dir()  # several skills: fail before the container is touched
        except ValueError as exc:
            raise RuntimeError(str(exc)) from None
        return files

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


def _byte_count(value: int | str) -> int:
    try:
        count = value if isinstance(value, int) else int(str(value))
    except ValueError:
        count = -1
    if count < 0:
        raise ValueError(f"inline_upload_bytes must be a whole number of bytes, 0 or more; got "
                         f"{value!r}")
    return count


def _number(value: Any) -> int | float:
    """Agent kwargs may arrive as strings from the command line."""
    if isinstance(value, int | float):
        return value
    text = str(value)
    return float(text) if any(c in text for c in ".eE") else int(text)
