"""Where things live in an exported Harbor task and inside its container.

An exported task::

    <task>/
      task.toml                  [metadata.judge_runner] names the case; no label
      instruction.md             the rendered judge instruction
      environment/
        Dockerfile               FROM the judge image; case and JudgeSkill copied in
        docker-compose.yaml      network_mode none (only with the "docker" network isolation)
        case/                    the case package (cases/<id>/ of the dataset), nothing else
        skills/<skill>/          the JudgeSkill, in Harbor's skills dir
        home/                    empty: becomes the judge user's $HOME (/home/judge)
      tests/                     copied in by Harbor only after the judge has finished
        test.sh                  runs check_verdict.py as root
        check_verdict.py         compares the verdict file with the label; writes the reward
        label.json               TaskLabel: the only place the label exists

Inside the container the judge's products go to `PRODUCTS_DIR` (under Harbor's agent log dir,
so Harbor brings them back into the trial folder as `agent/judge/`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Label

CASE_DIR = "/case"  # the case package, read-only for the judge
SKILLS_DIR = "/skills"  # Harbor's skills dir: [environment] skills_dir in task.toml
LOGS_AGENT_DIR = "/logs/agent"  # Harbor's agent log dir inside the container
PRODUCTS_SUBDIR = "judge"  # under the agent log dir, in the container and in the trial folder
PRODUCTS_DIR = f"{LOGS_AGENT_DIR}/{PRODUCTS_SUBDIR}"
VERDICT_PATH = f"{PRODUCTS_DIR}/verdict.json"
JUDGE_USER = "judge"  # the judge image's non-root user; every judge command runs as it

LABEL_FILE = "label.json"  # in tests/
DETAILS_FILE = "details.json"  # written by the verifier into /logs/verifier/
CONFIG_FILE = "judge_config.json"  # JudgeAgent: the judge's config(), beside the products
METADATA_KEY = "judge_runner"  # task.toml [metadata.judge_runner]


class TaskLabel(BaseModel):
    """tests/label.json. Never copied into environment/."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str
    label: Label


class TaskMeta(BaseModel):
    """task.toml [metadata.judge_runner]: what collect needs to rebuild a run record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case_id: str
    task: str
    domain: str | None = None
    dataset: str  # the dataset directory the case was exported from
    skill: str | None = None  # JudgeSkill name@version; None: the task carries no JudgeSkill
