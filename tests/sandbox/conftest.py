"""Sandbox test fixtures: a planted dataset (labels and evidence next to the case package) and
a session-end check that no sandbox container created by these tests is left."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import docker_available, docker_sdk

SESSION_LABEL = "judge-runner.test-session"
SESSION = uuid.uuid4().hex


@dataclass(frozen=True)
class Planted:
    """A dataset with one case package and, outside it, secrets a judge must never see."""

    root: Path
    case_dir: Path
    other_case_dir: Path
    label_canary: str
    evidence_canary: str
    other_case_canary: str


def plant_dataset(root: Path) -> Planted:
    tag = uuid.uuid4().hex
    label_canary = f"LABELCANARY-{tag}"
    evidence_canary = f"EVIDENCECANARY-{tag}"
    other_canary = f"OTHERCASECANARY-{tag}"
    root.chmod(0o755)
    case_dir = root / "cases" / "case-a"
    (case_dir / "artifacts").mkdir(parents=True)
    (case_dir / "instruction.md").write_text("Write the report to /root/out.csv\n")
    (case_dir / "artifacts" / "out.csv").write_text("name,value\nalpha,1\nbeta,2\n")
    # World-writable on the host, so only the read-only mount can stop writes inside.
    (case_dir / "artifacts").chmod(0o777)
    (case_dir / "artifacts" / "out.csv").chmod(0o666)
    # Links that try to reach the label from inside the package, relative and absolute.
    (case_dir / "artifacts" / "peek-relative").symlink_to("../../../labels.jsonl")
    (case_dir / "artifacts" / "peek-absolute").symlink_to(root / "labels.jsonl")
    (case_dir / "artifacts" / "peek-evidence").symlink_to(root / "evidence" / "case-a")
    other = root / "cases" / "case-b"
    other.mkdir()
    (other / "secret.txt").write_text(other_canary + "\n")
    record = {"case_id": "case-a", "label": "fail", "reward": 0.0, "note": label_canary}
    (root / "labels.jsonl").write_text(json.dumps(record) + "\n")
    evidence = root / "evidence" / "case-a"
    evidence.mkdir(parents=True)
    (evidence / "reward.txt").write_text(f"0 {evidence_canary}\n")
    (evidence / "test-stdout.txt").write_text(f"FAILED test_output {evidence_canary}\n")
    return Planted(root, case_dir, other, label_canary, evidence_canary, other_canary)


@pytest.fixture
def planted(tmp_path: Path) -> Planted:
    return plant_dataset(tmp_path)


@pytest.fixture(scope="module")
def planted_module(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return plant_dataset(tmp_path_factory.mktemp("dataset"))


@pytest.fixture(scope="session")
def test_labels() -> dict[str, str]:
    """Labels every sandbox made by these tests carries (subprocesses included)."""
    return {SESSION_LABEL: SESSION}


def docker_client() -> Any:
    """A docker SDK client."""
    return docker_sdk().from_env(timeout=30)


def _session_containers() -> list[str]:
    client = docker_client()
    try:
        mine = client.api.containers(all=True, filters={"label": f"{SESSION_LABEL}={SESSION}"})
        by_pid = client.api.containers(
            all=True, filters={"label": f"judge-runner.owner-pid={os.getpid()}"})
        names = {c["Names"][0] for c in [*mine, *by_pid]}
        for c in [*mine, *by_pid]:  # leave the engine clean even when the check fails
            client.api.remove_container(c["Id"], force=True)
        return sorted(names)
    finally:
        client.close()


@pytest.fixture(scope="session", autouse=True)
def no_container_left_behind() -> Iterator[None]:
    """After every sandbox test has run (including those that raise mid-case), no container
    created by this test process or its subprocesses may remain."""
    yield
    if not docker_available():
        return
    left = _session_containers()
    assert not left, f"sandbox containers left behind by the tests: {left}"
