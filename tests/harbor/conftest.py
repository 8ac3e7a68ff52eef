"""Fixtures of the Harbor tests: the bundled examples as a dataset, Harbor on a real engine."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.harbor import layout
from judge_runner.ingest import ImportOptions, import_trials
from tests.conftest import EXAMPLES, REPO, require
from tests.fakeapi.server import FakeMessagesServer, Responder

# Harbor imports litellm, which otherwise fetches its model price map from the network on import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HARBOR_TELEMETRY", "0")

VENV_BIN = Path(sys.executable).parent
# As docs/harbor.md advises for JudgeAgent: Harbor offline, and the model name handed to the
# agent as given (JudgeAgent resolves it; Harbor's own resolution imports litellm).
HARBOR_OFFLINE_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HARBOR_TELEMETRY": "0"}
JUDGE_AGENT_RUN_FLAGS = ("--skip-model-parsing-and-provider-mapping",)
SKILL = REPO / "judgeskills" / "v1"
MODEL = "claude-sonnet-4-5"


@pytest.fixture(scope="session")
def examples_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The bundled example trials imported as a dataset (12 cases, 4 task families)."""
    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    out = tmp_path_factory.mktemp("examples") / "dataset"
    options = ImportOptions(task_dirs=[EXAMPLES / "tasks"])
    report = import_trials([EXAMPLES / "trials"], out, options)
    assert all(t.status.value != "failed" for t in report.trials), report
    return Dataset(out)


def one_case_per_task(dataset: Dataset, n: int) -> list[str]:
    """The first case of each task family, then more until `n` — a small, varied selection."""
    by_task: dict[str, list[str]] = {}
    for case_id in dataset.case_ids():
        by_task.setdefault(case_id.split("__")[0], []).append(case_id)
    picked = [ids[0] for ids in by_task.values()]
    rest = [c for ids in by_task.values() for c in ids[1:]]
    return sorted((picked + rest)[:n])


@pytest.fixture(scope="session")
def judge_image(docker_engine: None) -> str:
    """The judge image the tasks build FROM (and `eval --sandbox docker` uses)."""
    image = os.environ.get("JUDGE_RUNNER_SANDBOX_IMAGE", "judge-runner-judge:latest")
    found = subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode
    require(found == 0, f"judge image {image} missing: run scripts/build-images")
    return image


@pytest.fixture(scope="session")
def harbor_cli(judge_image: str) -> Path:
    """Harbor's CLI, with the Compose v2 plugin it shells out to."""
    require(importlib.util.find_spec("harbor") is not None,
            "harbor not installed: ./scripts/setup-venv dev")
    compose = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    require(compose.returncode == 0 and "v2." in compose.stdout,
            "docker compose v2 missing: scripts/ci-docker installs it")
    return VENV_BIN / "harbor"


def harbor_env() -> dict[str, str]:
    # litellm (imported by Harbor) must not fetch its price map from the network, nor Harbor
    # send its usage telemetry (which also imports litellm when a job ends).
    return {**os.environ, **HARBOR_OFFLINE_ENV, "ANTHROPIC_API_KEY": "test-key-not-secret"}


def harbor_run_argv(harbor: Path, tasks: Path, jobs: Path, job: str, api_base: str,
                    concurrency: int, agent_kwargs: tuple[str, ...] = ()) -> list[str]:
    """`agent_kwargs`: more JudgeAgent kwargs, as key=value."""
    kwargs = [arg for pair in (f"api_base={api_base}", *agent_kwargs) for arg in ("--ak", pair)]
    return [str(harbor), "run", "-p", str(tasks), "-a", "judge_runner.harbor.agent:JudgeAgent",
            "-m", MODEL, *JUDGE_AGENT_RUN_FLAGS, *kwargs, "-e", "docker",
            "-o", str(jobs), "--job-name", job, "-n", str(concurrency), "-y", "-q"]


def remove_trial_leftovers(tasks: Path) -> None:
    """Containers and images Harbor leaves behind when its process is killed — only those of
    the tasks under `tasks`: other runs on the same engine (another test session) judge the
    same cases at the same time, and their trial containers are not ours to remove."""
    under = str(tasks.resolve()) + "/"
    rows = subprocess.run(
        ["docker", "ps", "-a", "--format", "{{.ID}}\t"
         '{{.Label "com.docker.compose.project"}}\t'
         '{{.Label "com.docker.compose.project.working_dir"}}'],
        capture_output=True, text=True).stdout.splitlines()
    ours = [row.split("\t") for row in rows if row.count("\t") == 2]
    ours = [fields for fields in ours if fields[2].startswith(under)]
    if ours:
        subprocess.run(["docker", "rm", "-f", *(f[0] for f in ours)], capture_output=True)
    for project in sorted({f[1] for f in ours if f[1]}):
        images = subprocess.run(
            ["docker", "images", "-q", "--filter", f"label=com.docker.compose.project={project}"],
            capture_output=True, text=True).stdout.split()
        if images:
            subprocess.run(["docker", "rmi", "-f", *images], capture_output=True)


def run_harbor_job(harbor: Path, tasks: Path, jobs: Path, responder: Responder) -> None:
    """One Harbor job ("job", one trial at a time) of the judge agent over `tasks`, its model
    calls answered by `responder`; fails the test unless Harbor exits 0, then removes what the
    trials left on the engine."""
    server = FakeMessagesServer().start()
    server.responder = responder
    try:
        run = subprocess.run(harbor_run_argv(harbor, tasks, jobs, "job", server.base_url,
                                             concurrency=1),
                             cwd=jobs.parent, env=harbor_env(), capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, run.stdout[-3000:] + describe_trials(jobs / "job")
    finally:
        server.stop()
        remove_trial_leftovers(tasks)


def describe_trial(trial: Path) -> str:
    """What one trial folder of a Harbor job ended with, for assertion messages: Harbor's
    exception (message and where it was raised) or the rewards, and the judge's products."""
    result_path = trial / "result.json"
    if not result_path.is_file():
        return f"{trial.name}: unfinished (no result.json)"
    result = json.loads(result_path.read_text())
    exception = result.get("exception_info")
    if exception:
        lines = str(exception.get("exception_traceback") or "").strip().splitlines()
        # Where our code was (agent, sandbox) and where it was raised.
        ours = [f"{line.strip()}: {lines[i + 1].strip()}" for i, line in enumerate(lines[:-1])
                if line.lstrip().startswith("File") and "/judge_runner/" in line]
        status = (f"{exception.get('exception_type')}: {exception.get('exception_message')}\n"
                  + "\n".join(f"    {line}" for line in ours + lines[-4:]))
    else:
        status = f"rewards {(result.get('verifier_result') or {}).get('rewards')}"
    products = trial / "agent" / layout.PRODUCTS_SUBDIR
    names = sorted(p.name for p in products.iterdir()) if products.is_dir() else []
    verdict = ""
    if (products / "verdict.json").is_file():
        data = json.loads((products / "verdict.json").read_text())
        verdict = f"; verdict {data.get('decision')} (error: {data.get('error')})"
    return f"{trial.name}: {status}\n  products: {', '.join(names) or 'none'}{verdict}"


def describe_trials(job: Path) -> str:
    """`describe_trial` for every trial folder of `job`."""
    trials = sorted(p for p in job.iterdir() if p.is_dir()) if job.is_dir() else []
    return "\n".join(describe_trial(t) for t in trials) or f"{job}: no trial folders"


def failed_trials(job: Path) -> list[str]:
    """Trial folders of `job` that Harbor ended with an exception, or that did not finish."""
    failed = []
    for trial in sorted(p for p in job.iterdir() if (p / "config.json").is_file()):
        result_path = trial / "result.json"
        if not result_path.is_file() or json.loads(result_path.read_text())["exception_info"]:
            failed.append(trial.name)
    return failed


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
