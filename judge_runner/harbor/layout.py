"""Where things live in an exported Harbor task and inside its container.

An exported task (build: one image per task; prebuilt: the judge image as it is)::

    <task>/
      task.toml                  [metadata.judge_runner] names the case; no label.
                                 prebuilt: [environment] docker_image names the judge image
      instruction.md             the rendered judge instruction
      environment/
        docker-compose.yaml      network_mode none (only with the "docker" network isolation)
        Dockerfile               build: FROM the judge image; case and JudgeSkill copied in
        case/                    build: the case package (cases/<id>/), nothing else
        skills/<skill>/          build: the JudgeSkill, in Harbor's skills dir
        home/                    build: empty, becomes the judge user's $HOME (/home/judge)
      upload/                    prebuilt: what JudgeAgent uploads before the judge starts
        case/                    the case package, to CASE_DIR
        skills/<skill>/          the JudgeSkill, to SKILLS_DIR
      tests/                     copied in by Harbor only after the judge has finished; root's
                                 alone (0700, files 0600, test.sh 0700)
        test.sh                  runs check_verdict.py as root
        check_verdict.py         compares the verdict file with the label; writes the reward
        label.json               TaskLabel: the only place the label exists

Inside the container the judge's products go to `PRODUCTS_DIR` (under Harbor's agent log dir,
so Harbor brings them back into the trial folder as `agent/judge/`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from judge_runner.core import Label

CASE_DIR = "/case"  # the case package, read-only for the judge
SKILLS_DIR = "/skills"  # Harbor's skills dir: [environment] skills_dir in task.toml
LOGS_AGENT_DIR = "/logs/agent"  # Harbor's agent log dir inside the container
PRODUCTS_SUBDIR = "judge"  # under the agent log dir, in the container and in the trial folder
PRODUCTS_DIR = f"{LOGS_AGENT_DIR}/{PRODUCTS_SUBDIR}"
VERDICT_PATH = f"{PRODUCTS_DIR}/verdict.json"
JUDGE_USER = "judge"  # the judge image's non-root user; every judge command runs as it
# The image's own processes of the judge's user (the judge image's main process runs as it when
# Harbor starts the image as it is), recorded by JudgeAgent before the judge starts: killing
# them would stop the container, so test.sh's sweep spares them and kills the rest.
IMAGE_PIDS_FILE = "/root/judge-runner-image-pids"

ENVIRONMENT_SUBDIR = "environment"  # Harbor's: the task's image definition
UPLOAD_SUBDIR = "upload"  # prebuilt tasks: the case and the JudgeSkill, uploaded at setup
UPLOAD_STAGING_DIR = "/root/judge-runner-upload"  # where the upload lands before it is moved

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


def record_image_processes() -> str:
    """Shell (as root, before the judge starts): note the judge user's processes now running."""
    return f"{{ pgrep -u {JUDGE_USER} > {IMAGE_PIDS_FILE} || true; }}"


def kill_judge_processes() -> str:
    """Shell (as root): kill every process of the judge's user but the image's own, in a few
    rounds against processes forking meanwhile. Without a record, every one of them."""
    return (f"touch {IMAGE_PIDS_FILE}; for round in 1 2 3; do for pid in $(pgrep -u {JUDGE_USER});"
            f" do grep -qxF \"$pid\" {IMAGE_PIDS_FILE} || kill -KILL \"$pid\" 2>/dev/null;"
            " done; done; true")


def count_judge_processes() -> str:
    """Shell (as root): how many processes of the judge's user run, the image's own aside."""
    return f"$(touch {IMAGE_PIDS_FILE}; pgrep -u {JUDGE_USER} | grep -cvxF -f {IMAGE_PIDS_FILE})"


@dataclass(frozen=True)
class TaskFiles:
    """Where a task folder keeps the case package and the JudgeSkill(s) on the host: under
    `environment/` for a build task, under `upload/` for a prebuilt one (`uploaded`)."""

    root: Path
    uploaded: bool

    @classmethod
    def of(cls, task_dir: Path, prebuilt: bool) -> TaskFiles:
        return cls(task_dir / (UPLOAD_SUBDIR if prebuilt else ENVIRONMENT_SUBDIR), prebuilt)

    @classmethod
    def find(cls, task_dir: Path) -> TaskFiles:
        """The files of an exported task, of either kind; ValueError when there are none."""
        for files in (cls.of(task_dir, True), cls.of(task_dir, False)):
            if files.case_dir.is_dir():
                return files
        raise ValueError(f"{task_dir} holds no case package (neither {UPLOAD_SUBDIR}/case nor "
                         f"{ENVIRONMENT_SUBDIR}/case): not a task exported by judge-runner")

    @property
    def case_dir(self) -> Path:
        return self.root / "case"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    def skill_dir(self) -> Path | None:
        """The JudgeSkill folder; None when the task carries none. ValueError for several."""
        found = sorted(p for p in self.skills_dir.glob("*") if (p / "SKILL.md").is_file())
        if len(found) > 1:
            names = ", ".join(p.name for p in found)
            raise ValueError(f"{self.skills_dir} holds several skills ({names}); expected one")
        return found[0] if found else None
