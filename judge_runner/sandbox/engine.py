"""Talking to the Docker engine: connecting, finding the judge image, the container labels."""

from __future__ import annotations

import importlib
import os
import socket
from functools import cache
from typing import Any

from judge_runner.sandbox.base import SandboxError

IMAGE_ENV = "JUDGE_RUNNER_SANDBOX_IMAGE"
DEFAULT_IMAGE = "judge-runner-judge:latest"
# Every sandbox container carries LABEL_SANDBOX; the owner labels let `sandbox prune` tell a
# crashed run's leftovers from a live run's containers.
LABEL_SANDBOX = "judge-runner.sandbox"
LABEL_CASE = "judge-runner.case"
LABEL_HOST = "judge-runner.owner-host"
LABEL_PID = "judge-runner.owner-pid"
LABEL_CREATED = "judge-runner.created"


def default_image() -> str:
    return os.environ.get(IMAGE_ENV) or DEFAULT_IMAGE


def sdk() -> Any:
    """The docker SDK module. Imported by name because the repository's own `docker/` folder
    (the image definitions) shadows it for static checkers run from the repository root."""
    return importlib.import_module("docker")


def errors() -> Any:
    """The docker SDK's exception module (NotFound, ImageNotFound, DockerException...)."""
    return importlib.import_module("docker.errors")


def connect(timeout: float = 30.0) -> Any:
    """A docker SDK client whose engine answered a ping; SandboxError when none answers."""
    try:
        client = sdk().from_env(timeout=timeout)
        client.ping()
    except Exception as exc:
        raise SandboxError(f"no Docker engine answers ({exc}); start one (scripts/ci-docker) "
                           "or use the local sandbox") from exc
    return client


@cache
def engine_answers() -> bool:
    """Whether a Docker engine answers a ping within 5 s (checked once per process)."""
    try:
        connect(timeout=5.0).close()
    except SandboxError:
        return False
    return True


def owner_labels() -> dict[str, str]:
    return {LABEL_SANDBOX: "1", LABEL_HOST: socket.gethostname(), LABEL_PID: str(os.getpid())}
