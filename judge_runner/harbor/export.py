"""`judge-runner harbor export`: one Harbor task per case (layout in `judge_runner.harbor.layout`).

What reaches the task container is exactly the case package (`cases/<id>/`, symlinks copied as
links so none can pull in a file from outside the package) and the JudgeSkill. The label goes to
`tests/label.json` only, which Harbor copies in after the judge has finished; the dataset's
`evidence/` is never exported.

Two kinds of task (`TaskBuild`): a *build* task carries a Dockerfile that copies the case and the
JudgeSkill into the judge image, so Harbor builds one image per task and any harness finds them
in place; a *prebuilt* task names the judge image itself (`[environment] docker_image`) and keeps
the case and the JudgeSkill in `upload/`, which JudgeAgent uploads when the trial starts: no image
build per case.

Per-case problems (unreadable case package, no label, an id Harbor cannot use as a task name, an
existing folder that is not an exported task) are reported and skipped; the other cases are
exported. Output is deterministic: the same inputs give byte-identical task folders.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path

import jinja2
from pydantic import ValidationError

from judge_runner.cases import CasePackage, Dataset, LabelRecord
from judge_runner.core import CASE_FILE, INSTRUCTION_FILE, LABELS_FILE
from judge_runner.harbor import layout
from judge_runner.harbor import verifier as verifier_module
from judge_runner.sandbox import default_image
from judge_runner.skills import JudgeSkill

JUDGE_HOME = "/home/judge"
_TASK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class NetworkIsolation(StrEnum):
    """How an exported task keeps the judge off the network.

    docker: a docker-compose.yaml with `network_mode: none` (any plain Docker engine; Harbor's
        own Docker network policy needs an egress sidecar image pulled from a registry).
    policy: Harbor's `[environment] network_mode = "no-network"`, for environments that enforce
        it themselves (modal, daytona, e2b, ...), where a compose file would switch Harbor to
        Docker-in-Docker.
    open: no restriction, for harnesses whose model calls leave from inside the container
        (Harbor's claude-code agent). The label is still absent while the judge runs.
    """

    DOCKER = "docker"
    POLICY = "policy"
    OPEN = "open"


class TaskBuild(StrEnum):
    """How the trial container gets the case and the JudgeSkill.

    build: the task's Dockerfile copies them into an image built FROM the judge image, one build
        per task; every harness finds them in place (Harbor's claude-code agent).
    prebuilt: the task runs the judge image as it is (`[environment] docker_image`) and
        JudgeAgent uploads them from the task's `upload/` folder before the judge starts; no
        build. Only for JudgeAgent, which knows to upload.
    """

    BUILD = "build"
    PREBUILT = "prebuilt"


@dataclass(frozen=True)
class ExportOptions:
    """image: the judge image (default: the docker sandbox's, ``$JUDGE_RUNNER_SANDBOX_IMAGE``
    or ``judge-runner-judge:latest``); a build task builds FROM it, a prebuilt task runs it.
    build: see TaskBuild. network: see NetworkIsolation.
    agent_timeout_s / verifier_timeout_s: Harbor's phase timeouts. cpus / memory_mb: resources.
    """

    image: str = field(default_factory=default_image)
    build: TaskBuild = TaskBuild.BUILD
    network: NetworkIsolation = NetworkIsolation.DOCKER
    agent_timeout_s: float = 1800.0
    verifier_timeout_s: float = 120.0
    cpus: int = 1
    memory_mb: int = 2048


@dataclass
class ExportResult:
    tasks: list[Path] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # case id -> reason


class ExportError(ValueError):
    """The export as a whole cannot proceed (e.g. the output is not a directory)."""


def export_tasks(
    dataset: Dataset,
    case_ids: list[str],
    skill: JudgeSkill | None,
    out: Path,
    options: ExportOptions | None = None,
) -> ExportResult:
    """Write one task folder per case under `out`; rewrites folders of an earlier export."""
    options = options or ExportOptions()
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    labels = dataset.labels()
    result = ExportResult()
    for case_id in sorted(dict.fromkeys(case_ids)):
        try:
            result.tasks.append(
                _export_case(dataset, case_id, labels.get(case_id), skill, out, options))
        except _CaseError as exc:
            result.errors[case_id] = str(exc)
    return result


class _CaseError(Exception):
    pass


def _export_case(
    dataset: Dataset,
    case_id: str,
    label: LabelRecord | None,
    skill: JudgeSkill | None,
    out: Path,
    options: ExportOptions,
) -> Path:
    if not _TASK_NAME.match(case_id):
        raise _CaseError(f"case id {case_id!r} is not usable as a Harbor task name")
    case = dataset.case(case_id)
    if not (case.root / CASE_FILE).is_file():
        raise _CaseError(f"no case package at {case.root}")
    try:
        meta = case.meta
        instruction = case.instruction
    except (OSError, ValueError, ValidationError) as exc:
        raise _CaseError(f"case package {case.root} unreadable: {exc}") from None
    if label is None:
        raise _CaseError(f"no label for {case_id} in {dataset.root / LABELS_FILE}")
    task_dir = out / case_id
    _clear_previous(task_dir)
    env_dir = task_dir / layout.ENVIRONMENT_SUBDIR
    # An empty environment/ of a prebuilt task: Harbor uploads a non-empty one by itself.
    env_dir.mkdir(parents=True)
    files = layout.TaskFiles.of(task_dir, options.build is TaskBuild.PREBUILT)
    shutil.copytree(case.root, files.case_dir, symlinks=True)
    files.skills_dir.mkdir(parents=True)
    if skill is not None:
        shutil.copytree(skill.path, files.skills_dir / skill.name, symlinks=True)
    if options.build is TaskBuild.BUILD:
        _write(env_dir / "home" / ".keep", "")
        _write(env_dir / "Dockerfile", _dockerfile(options.image))
    _normalize_modes(files.root)
    if options.network is NetworkIsolation.DOCKER:
        _write(env_dir / "docker-compose.yaml", _COMPOSE_NO_NETWORK)
    task_meta = layout.TaskMeta(
        case_id=case_id, task=meta.task,
        domain=meta.domain.value if meta.domain is not None else None,
        dataset=str(dataset.root.resolve()),
        skill=f"{skill.name}@{skill.version}" if skill is not None else None,
    )
    _write(task_dir / "task.toml", _task_toml(task_meta, options))
    _write(task_dir / INSTRUCTION_FILE, render_instruction(case, instruction, skill))
    tests = task_dir / "tests"
    _write(tests / layout.LABEL_FILE,
           layout.TaskLabel(case_id=case_id, label=label.label).model_dump_json() + "\n")
    _write(tests / "check_verdict.py", Path(verifier_module.__file__).read_text(encoding="utf-8"))
    test_sh = tests / "test.sh"
    _write(test_sh, _templates().get_template("test.sh.j2").render(
        judge_user=layout.JUDGE_USER, verdict_path=layout.VERDICT_PATH,
        label_file=layout.LABEL_FILE, count_judge=layout.count_judge_processes(),
        kill_judge=layout.kill_judge_processes()))
    _root_only(tests)
    return task_dir


def _clear_previous(task_dir: Path) -> None:
    """Remove an earlier export of this case; refuse to touch any other folder."""
    if not task_dir.exists() and not task_dir.is_symlink():
        return
    toml_path = task_dir / "task.toml"
    is_ours = (task_dir.is_dir() and not task_dir.is_symlink() and toml_path.is_file()
               and f"[metadata.{layout.METADATA_KEY}]" in toml_path.read_text(encoding="utf-8"))
    if not is_ours:
        raise _CaseError(f"{task_dir} exists and is not an exported judge task; not touching it")
    shutil.rmtree(task_dir)


def _normalize_modes(root: Path) -> None:
    """Directories 0755, files 0644 (0755 when executable): readable, never writable, by the
    judge's user once COPY (or JudgeAgent's upload) has made root their owner."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir() or path.stat().st_mode & 0o111:
            path.chmod(0o755)
        else:
            path.chmod(0o644)


def _root_only(tests: Path) -> None:
    """tests/ for root alone: Harbor copies it in after the judge, while processes the judge
    left may still run until test.sh kills them; `docker compose cp` keeps these modes (and
    makes root the owner), so none of them can list the folder or read the label."""
    tests.chmod(0o700)
    for path in tests.iterdir():
        path.chmod(0o700 if path.name == "test.sh" else 0o600)


def render_instruction(case: CasePackage, instruction: str, skill: JudgeSkill | None) -> str:
    return _templates().get_template("instruction.md.j2").render(
        meta=case.meta, instruction=instruction.strip(),
        skill_name=skill.name if skill is not None else None,
        skill_dir=skill.name if skill is not None else None,
        skills_dir=layout.SKILLS_DIR, case_dir=layout.CASE_DIR,
        products_dir=layout.PRODUCTS_DIR,
    )


_COMPOSE_NO_NETWORK = """\
# The judge runs with no network at all on a plain Docker engine. The container's main process
# (a shell waiting forever) ignores SIGTERM and nothing in it needs a graceful stop: without a
# grace period the trial's teardown does not wait 10 s for it.
services:
  main:
    network_mode: none
    stop_grace_period: 0s
"""


def _dockerfile(image: str) -> str:
    return f"""\
# The judge image with this case's package and the JudgeSkill. Nothing else: no label.
ARG JUDGE_IMAGE={image}
FROM ${{JUDGE_IMAGE}}
USER root
# COPY makes the files root's; export gave them read-only modes for everyone else. (No RUN:
# engines without a bridge network cannot run build steps.)
COPY case/ {layout.CASE_DIR}/
COPY skills/ {layout.SKILLS_DIR}/
# A home the judge's user owns, for harnesses that install or keep state there (claude-code).
COPY --chown={layout.JUDGE_USER}:{layout.JUDGE_USER} home/ {JUDGE_HOME}/
ENV HOME={JUDGE_HOME}
WORKDIR {layout.CASE_DIR}
"""


def _task_toml(meta: layout.TaskMeta, options: ExportOptions) -> str:
    def value(v: object) -> str:
        return json.dumps(v)  # JSON strings and numbers are valid TOML values

    fields = meta.model_dump()
    lines = [
        'schema_version = "1.4"',
        "",
        f"[metadata.{layout.METADATA_KEY}]",
        *(f"{k} = {value(v)}" for k, v in fields.items() if v is not None),
        "",
        "[agent]",
        f"timeout_sec = {value(options.agent_timeout_s)}",
        f"user = {value(layout.JUDGE_USER)}",
        "",
        "[verifier]",
        f"timeout_sec = {value(options.verifier_timeout_s)}",
        'user = "root"',
        "",
        "[environment]",
        *([f"docker_image = {value(options.image)}"] if options.build is TaskBuild.PREBUILT
          else ["build_timeout_sec = 600.0"]),
        f"cpus = {options.cpus}",
        f"memory_mb = {options.memory_mb}",
        f"skills_dir = {value(layout.SKILLS_DIR)}",
        f"workdir = {value(layout.CASE_DIR)}",
    ]
    if options.network is NetworkIsolation.POLICY:
        lines.append('network_mode = "no-network"')
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("judge_runner.harbor", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # markdown and shell, not HTML
    )
