"""Exporting cases as Harbor tasks: layout, label isolation, determinism, per-case errors."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.harbor import layout
from judge_runner.harbor.export import ExportOptions, NetworkIsolation, TaskBuild, export_tasks
from judge_runner.skills import load_skill
from tests.conftest import require
from tests.harbor.conftest import SKILL, VENV_BIN, one_case_per_task


@pytest.fixture
def dataset(examples_dataset: Dataset, tmp_path: Path) -> Dataset:
    """A private copy: some tests plant files in it."""
    copy = tmp_path / "dataset"
    shutil.copytree(examples_dataset.root, copy, symlinks=True)
    return Dataset(copy)


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        if path.is_symlink():
            digest.update(b"L" + str(path.readlink()).encode())
        elif path.is_file():
            digest.update(oct(path.stat().st_mode).encode() + path.read_bytes())
    return digest.hexdigest()


def test_every_case_becomes_a_task_with_the_label_only_under_tests(
    dataset: Dataset, tmp_path: Path
) -> None:
    out = tmp_path / "tasks"
    result = export_tasks(dataset, dataset.case_ids(), load_skill(SKILL), out)
    assert result.errors == {}
    assert [t.name for t in result.tasks] == dataset.case_ids()
    labels = dataset.labels()
    for task in result.tasks:
        case_id = task.name
        label = json.loads((task / "tests" / layout.LABEL_FILE).read_text())
        assert label == {"case_id": case_id, "label": labels[case_id].label.value}
        meta = tomllib.loads((task / "task.toml").read_text())["metadata"]["judge_runner"]
        assert meta["case_id"] == case_id and "label" not in json.dumps(meta)
        # What the judge can see: the image context and the instruction. Neither holds the
        # label record, the verifier's reward or any verifier evidence.
        secrets = [(dataset.root / "labels.jsonl").read_text().splitlines()[
            dataset.case_ids().index(case_id)], json.dumps(label)]
        for evidence in sorted(dataset.evidence_dir(case_id).rglob("*")):
            if evidence.is_file():
                secrets += [line for line in evidence.read_text(errors="replace").splitlines()
                            if len(line.strip()) > 40][:5]
        visible = [task / "instruction.md", task / "task.toml",
                   *(p for p in (task / "environment").rglob("*") if p.is_file())]
        for path in visible:
            text = path.read_text(errors="replace")
            for secret in secrets:
                assert secret not in text, f"{secret[:60]!r} leaked into {path}"
        assert (task / "environment" / "case" / "case.json").read_bytes() == (
            dataset.cases_dir / case_id / "case.json").read_bytes()
        assert (task / "environment" / "skills" / "skill-trajectory-judge" / "SKILL.md").is_file()
        assert "/skills/skill-trajectory-judge/SKILL.md" in (task / "instruction.md").read_text()
        assert "network_mode: none" in (task / "environment" / "docker-compose.yaml").read_text()


def test_harbor_loads_the_exported_tasks(dataset: Dataset, tmp_path: Path) -> None:
    require(importlib.util.find_spec("harbor") is not None, "harbor not installed")
    from harbor.models.task.task import Task

    out = tmp_path / "tasks"
    export_tasks(dataset, one_case_per_task(dataset, 2), load_skill(SKILL), out)
    for task_dir in sorted(out.iterdir()):
        task = Task(task_dir)
        assert task.config.environment.skills_dir == layout.SKILLS_DIR
        assert str(task.config.agent.user) == layout.JUDGE_USER
        assert str(task.config.verifier.user) == "root"
        assert task.instruction.startswith("# Judge a finished agent run")


def test_export_is_deterministic_and_rewrites_its_own_tasks(
    dataset: Dataset, tmp_path: Path
) -> None:
    ids = one_case_per_task(dataset, 3)
    first, second = tmp_path / "a", tmp_path / "b"
    export_tasks(dataset, ids, load_skill(SKILL), first)
    export_tasks(dataset, ids, load_skill(SKILL), second)
    export_tasks(dataset, ids, load_skill(SKILL), second)  # over an earlier export
    assert _tree_digest(first) == _tree_digest(second)


def test_network_isolation_modes(dataset: Dataset, tmp_path: Path) -> None:
    case = one_case_per_task(dataset, 1)
    for mode in NetworkIsolation:
        out = tmp_path / mode.value
        export_tasks(dataset, case, None, out, ExportOptions(network=mode))
        task = out / case[0]
        config = tomllib.loads((task / "task.toml").read_text())
        has_compose = (task / "environment" / "docker-compose.yaml").exists()
        assert has_compose == (mode is NetworkIsolation.DOCKER)
        expected = "no-network" if mode is NetworkIsolation.POLICY else None
        assert config["environment"].get("network_mode") == expected
        assert "No JudgeSkill is installed" in (task / "instruction.md").read_text()


def test_a_symlink_in_the_case_cannot_pull_in_the_labels(dataset: Dataset, tmp_path: Path) -> None:
    case_id = dataset.case_ids()[0]
    (dataset.cases_dir / case_id / "artifacts" / "labels-link").symlink_to(
        dataset.root / "labels.jsonl")
    out = tmp_path / "tasks"
    export_tasks(dataset, [case_id], None, out)
    link = out / case_id / "environment" / "case" / "artifacts" / "labels-link"
    assert link.is_symlink()  # copied as a link: inside the container it points nowhere


def test_per_case_problems_are_reported_and_the_rest_exported(
    dataset: Dataset, tmp_path: Path
) -> None:
    ids = one_case_per_task(dataset, 3)
    unlabeled, foreign = ids[0], ids[1]
    lines = (dataset.root / "labels.jsonl").read_text().splitlines()
    (dataset.root / "labels.jsonl").write_text(
        "".join(line + "\n" for line in lines if unlabeled not in line))
    out = tmp_path / "tasks"
    (out / foreign).mkdir(parents=True)
    (out / foreign / "notes.txt").write_text("mine")
    result = export_tasks(dataset, [*ids, "no-such-case", "bad id"], None, out)
    assert [t.name for t in result.tasks] == [ids[2]]
    assert "no label" in result.errors[unlabeled]
    assert "not an exported judge task" in result.errors[foreign]
    assert (out / foreign / "notes.txt").read_text() == "mine"
    assert "no case package" in result.errors["no-such-case"]
    assert "not usable as a Harbor task name" in result.errors["bad id"]


def test_the_default_image_is_the_docker_sandbox_image(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_RUNNER_SANDBOX_IMAGE", raising=False)
    assert ExportOptions().image == "judge-runner-judge:latest"
    monkeypatch.setenv("JUDGE_RUNNER_SANDBOX_IMAGE", "registry.example/judge:v7")
    assert ExportOptions().image == "registry.example/judge:v7"


def test_cli_exports_a_split_file(dataset: Dataset, tmp_path: Path) -> None:
    ids = one_case_per_task(dataset, 2)
    split = tmp_path / "mine.txt"
    split.write_text("\n".join(ids) + "\n")
    out = tmp_path / "tasks"
    done = subprocess.run(
        [str(VENV_BIN / "judge-runner"), "harbor", "export", str(dataset.root), "--split",
         str(split), "--skill", str(SKILL), "--out", str(out)],
        env={**os.environ, "JUDGE_RUNNER_SANDBOX_IMAGE": "registry.example/judge:v7"},
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "exported 2 task(s)" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == ids
    dockerfile = (out / ids[0] / "environment" / "Dockerfile").read_text()
    assert "ARG JUDGE_IMAGE=registry.example/judge:v7\n" in dockerfile


def test_prebuilt_tasks_name_the_judge_image_and_carry_the_case_for_upload(
    dataset: Dataset, tmp_path: Path
) -> None:
    ids = one_case_per_task(dataset, 2)
    out = tmp_path / "tasks"
    options = ExportOptions(image="registry.example/judge:v7", build=TaskBuild.PREBUILT)
    result = export_tasks(dataset, ids, load_skill(SKILL), out, options)
    assert result.errors == {}
    labels = dataset.labels()
    for task in result.tasks:
        case_id = task.name
        config = tomllib.loads((task / "task.toml").read_text())
        assert config["environment"]["docker_image"] == "registry.example/judge:v7"
        # No build: only the no-network compose file (Harbor uploads a non-empty environment/
        # holding neither a Dockerfile nor a compose file by itself, so nothing else is there).
        environment = sorted(p.name for p in (task / "environment").iterdir())
        assert environment == ["docker-compose.yaml"]
        upload = task / layout.UPLOAD_SUBDIR
        assert (upload / "case" / "case.json").read_bytes() == (
            dataset.cases_dir / case_id / "case.json").read_bytes()
        assert (upload / "skills" / "skill-trajectory-judge" / "SKILL.md").is_file()
        assert sorted(p.name for p in upload.iterdir()) == ["case", "skills"]
        for path in upload.rglob("*"):
            if not path.is_symlink():
                assert path.stat().st_mode & 0o777 in (0o644, 0o755), path
        secrets = [json.dumps(labels[case_id].model_dump(mode="json")),
                   (task / "tests" / layout.LABEL_FILE).read_text().strip()]
        visible = [p for p in task.rglob("*")
                   if p.is_file() and p.relative_to(task).parts[0] != "tests"]
        for path in visible:
            text = path.read_text(errors="replace")
            assert not any(secret in text for secret in secrets), path
        files = layout.TaskFiles.find(task)
        assert files.uploaded and files.case_dir == upload / "case"
        assert files.skill_dir() == upload / "skills" / "skill-trajectory-judge"


def test_prebuilt_tasks_load_in_harbor_without_a_build(dataset: Dataset, tmp_path: Path) -> None:
    require(importlib.util.find_spec("harbor") is not None, "harbor not installed")
    from harbor.environments.definition import (
        should_upload_environment_dir,
        should_use_prebuilt_docker_image,
    )
    from harbor.models.task.task import Task

    case = one_case_per_task(dataset, 1)
    for network in NetworkIsolation:
        out = tmp_path / network.value
        export_tasks(dataset, case, load_skill(SKILL), out,
                     ExportOptions(build=TaskBuild.PREBUILT, network=network))
        task = Task(out / case[0])
        image = task.config.environment.docker_image
        assert image == ExportOptions().image
        environment_dir = task.paths.environment_dir
        assert should_use_prebuilt_docker_image(environment_dir, docker_image=image,
                                                force_build=False)
        assert not should_upload_environment_dir(environment_dir, docker_image=image)


def test_task_files_tell_the_kinds_apart_and_refuse_what_is_not_a_task(
    dataset: Dataset, tmp_path: Path
) -> None:
    case = one_case_per_task(dataset, 1)
    for build in TaskBuild:
        export_tasks(dataset, case, load_skill(SKILL), tmp_path / build.value,
                     ExportOptions(build=build))
        files = layout.TaskFiles.find(tmp_path / build.value / case[0])
        assert files.uploaded == (build is TaskBuild.PREBUILT)
        assert files.case_dir.is_dir() and files.skill_dir() is not None
    export_tasks(dataset, case, None, tmp_path / "bare", ExportOptions(build=TaskBuild.PREBUILT))
    assert layout.TaskFiles.find(tmp_path / "bare" / case[0]).skill_dir() is None
    with pytest.raises(ValueError, match="holds no case package"):
        layout.TaskFiles.find(tmp_path)
    two = tmp_path / TaskBuild.PREBUILT.value / case[0] / layout.UPLOAD_SUBDIR / "skills"
    shutil.copytree(two / "skill-trajectory-judge", two / "another")
    with pytest.raises(ValueError, match="several skills"):
        layout.TaskFiles.find(two.parent.parent).skill_dir()


def test_cli_exports_prebuilt_tasks_and_refuses_two_images(
    dataset: Dataset, tmp_path: Path
) -> None:
    ids = one_case_per_task(dataset, 1)
    split = tmp_path / "mine.txt"
    split.write_text("\n".join(ids) + "\n")
    base = [str(VENV_BIN / "judge-runner"), "harbor", "export", str(dataset.root), "--split",
            str(split), "--out", str(tmp_path / "tasks")]
    done = subprocess.run([*base, "--prebuilt", "registry.example/judge:v7"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    config = tomllib.loads((tmp_path / "tasks" / ids[0] / "task.toml").read_text())
    assert config["environment"]["docker_image"] == "registry.example/judge:v7"
    both = subprocess.run([*base, "--prebuilt", "a:1", "--image", "b:2"],
                          capture_output=True, text=True, timeout=120)
    assert both.returncode != 0 and "--image and --prebuilt" in both.stderr


@pytest.mark.docker
def test_the_label_stays_unreadable_for_what_the_judge_left_running(
    dataset: Dataset, judge_image: str, tmp_path: Path
) -> None:
    """Harbor copies tests/ in with the engine's copy (`docker compose cp tests/. main:/tests`)
    after the judge, while a process the judge left behind may still run until test.sh kills
    it. Such a process polls for the label: with the exported modes it never reads it; the same
    folder made world-readable (the control) is read at once."""
    case = one_case_per_task(dataset, 1)
    export_tasks(dataset, case, None, tmp_path / "tasks", ExportOptions(image=judge_image))
    tests = tmp_path / "tasks" / case[0] / "tests"
    assert (tests.stat().st_mode & 0o777, (tests / layout.LABEL_FILE).stat().st_mode & 0o777) \
        == (0o700, 0o600)
    control = tmp_path / "control"
    shutil.copytree(tests, control)
    control.chmod(0o755)
    for path in control.iterdir():
        path.chmod(0o644)
    container = subprocess.run(
        ["docker", "run", "-d", "--rm", "--network", "none", judge_image, "sh", "-c",
         "sleep infinity; exit 0"], capture_output=True, text=True, check=True,
        timeout=120).stdout.strip()

    def docker(*args: str) -> str:
        done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    try:
        for folder, got in (("/tests", "/tmp/got"), ("/tests-control", "/tmp/got-control")):
            docker("exec", "-d", "-u", layout.JUDGE_USER, container, "sh", "-c",
                   f"while :; do if c=$(cat {folder}/{layout.LABEL_FILE} 2>/dev/null);"
                   f" then echo \"$c\" > {got}; exit; fi; ls {folder} >/dev/null 2>&1 &&"
                   f" echo listed > {got}; sleep 0.05; done")
        docker("cp", f"{tests}/.", f"{container}:/tests")
        docker("cp", f"{control}/.", f"{container}:/tests-control")
        docker("exec", "-u", "root", container, "sh", "-c",
               "for i in $(seq 600); do [ -e /tmp/got-control ] && exit; sleep 0.1; done")
        time.sleep(0.5)  # more polls of /tests than the control needed
        seen = docker("exec", "-u", "root", container, "sh", "-c",
                      "cat /tmp/got-control; ls /tmp/got 2>&1; stat -c '%U %a' /tests "
                      f"/tests/{layout.LABEL_FILE}")
        lines = seen.splitlines()
        assert json.loads(lines[0])["case_id"] == case[0]  # the control read the label
        assert "No such file" in lines[1], seen
        assert lines[2:] == ["root 700", "root 600"], seen
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, timeout=120)
