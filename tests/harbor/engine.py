"""What the Docker engine holds for a Harbor job: the images built for its trials.

Harbor's Docker environment builds a task's image under the trial's compose project (labelled
`com.docker.compose.project`) and removes it when the trial ends, and the engine reports no
event for a build; so `ImageWatch` polls the engine's image list while the job runs, for images
of the compose projects of the job's trials (read from the job folder as trials start). Only the
job's own trials count: other runs on the same engine build images of the same tasks.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType

from harbor.environments.docker.docker import _sanitize_docker_compose_project_name

from tests.conftest import docker_sdk

PROJECT_LABEL = "com.docker.compose.project"


def trial_projects(job: Path) -> set[str]:
    """Compose project names of the job's trials (Harbor: `<trial name>__env`)."""
    if not job.is_dir():
        return set()
    return {_sanitize_docker_compose_project_name(f"{p.name}__env")
            for p in job.iterdir() if p.is_dir()}


class ImageWatch:
    """Within the block, records every image of the job's trials' compose projects
    (`built`: project -> image ids), polling every `interval_s` and once more at the end."""

    def __init__(self, job: Path, interval_s: float = 0.2) -> None:
        self.job = job
        self.interval_s = interval_s
        self.built: dict[str, set[str]] = {}
        self.polls = 0
        self._failure: BaseException | None = None
        self._stop = threading.Event()
        self._client = docker_sdk().from_env()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> ImageWatch:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        try:
            if self._failure is not None:  # a watch that stopped early would see too little
                raise RuntimeError(f"the image watch failed: {self._failure}") from self._failure
            self._poll()
        finally:
            self._client.close()

    def _watch(self) -> None:
        try:
            while not self._stop.wait(self.interval_s):
                self._poll()
        except Exception as exc:  # reported by __exit__
            self._failure = exc

    def _poll(self) -> None:
        projects = trial_projects(self.job)
        if not projects:
            self.polls += 1
            return
        # The plain list (no inspection per image): images come and go while it is read.
        for image in self._client.api.images(filters={"label": PROJECT_LABEL}):
            project = (image.get("Labels") or {}).get(PROJECT_LABEL)
            if project in projects:
                self.built.setdefault(project, set()).add(image["Id"])
        self.polls += 1
