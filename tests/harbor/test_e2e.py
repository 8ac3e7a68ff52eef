"""Harbor end to end on the real Docker engine: export → `harbor run` with JudgeAgent against the
scripted Messages server → `harbor collect`, checked against `judge-runner eval` on the same cases
with the same script, for tasks of both kinds (build: an image per task; prebuilt: the judge image
as it is, the case uploaded at setup). The judge's bash command is a probe that searches the whole
container for the labels and the verifier evidence while the judge runs.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge_runner.cases.dataset import Dataset
from judge_runner.core import Decision
from judge_runner.harbor import layout, upload
from judge_runner.harbor.collect import CollectError, collect_job
from judge_runner.harbor.export import ExportOptions, TaskBuild, export_tasks
from judge_runner.runs.records import load_records, load_summary
from judge_runner.skills import load_skill
from tests.fakeapi.server import FakeMessagesServer
from tests.harbor.conftest import (
    MODEL,
    SKILL,
    VENV_BIN,
    describe_trial,
    describe_trials,
    failed_trials,
    harbor_env,
    harbor_run_argv,
    one_case_per_task,
    read_jsonl,
    remove_trial_leftovers,
)
from tests.harbor.engine import ImageWatch
from tests.harbor.scripted import ScriptedJudge

pytestmark = [pytest.mark.docker, pytest.mark.slow]

# In every case.json and nowhere in the needles: the same search must find it (a positive control).
CONTROL = '"transcript_format"'


def _secrets(dataset: Dataset, case_ids: list[str]) -> list[str]:
    """Label records (as in labels.jsonl and as in tests/label.json) and verifier evidence lines."""
    labels = dataset.labels()
    secrets = []
    for case_id in case_ids:
        record = labels[case_id]
        secrets.append(json.dumps(record.model_dump(mode="json")))
        secrets.append(layout.TaskLabel(case_id=case_id, label=record.label).model_dump_json())
        for path in sorted(dataset.evidence_dir(case_id).rglob("*")):
            if path.is_file():
                secrets += [line.strip() for line in path.read_text(errors="replace").splitlines()
                            if len(line.strip()) > 40][:3]
    return secrets


def _probe(secrets: list[str]) -> str:
    # The needles travel base64-encoded so that neither the command line nor the judge's own
    # transcript (under /logs/agent/judge) contains them in clear text.
    blob = base64.b64encode("\n".join(secrets).encode()).decode()
    return (
        f"echo {blob} | base64 -d > /tmp/jr-needles; "
        "if [ -e /tests ]; then echo tests-dir-present; else echo no-tests-dir; fi; "
        # The case and the JudgeSkill are there (uploaded or built in), read-only for the judge.
        "[ -f /skills/skill-trajectory-judge/SKILL.md ] && echo skill-present; "
        "for d in /case /case/artifacts /skills /skills/skill-trajectory-judge; do "
        "touch $d/jr-write-test 2>/dev/null && echo writable: $d; done; "
        "touch /case/case.json 2>/dev/null && echo writable: /case/case.json; "
        "find / -xdev -name label.json 2>/dev/null | sed 's/^/label-file: /'; "
        "grep -rlsIF -f /tmp/jr-needles / --exclude-dir=proc --exclude-dir=sys "
        "--exclude-dir=dev | grep -vx /tmp/jr-needles | sed 's/^/needle-in: /'; "
        f"grep -rlsIF -e '{CONTROL}' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev "
        "| sed 's/^/control: /'; true"
    )


@dataclass
class Scenario:
    build: TaskBuild
    images: ImageWatch  # the images built for the job's trials
    dataset: Dataset
    case_ids: list[str]
    decisions: dict[str, str]
    tasks: Path
    job: Path
    harbor_run: Path
    eval_run: Path
    harbor_judge: ScriptedJudge
    eval_judge: ScriptedJudge


@pytest.fixture(scope="module", params=list(TaskBuild), ids=[b.value for b in TaskBuild])
def scenario(
    request: pytest.FixtureRequest, examples_dataset: Dataset, harbor_cli: Path,
    judge_image: str, tmp_path_factory: pytest.TempPathFactory,
) -> Scenario:
    build: TaskBuild = request.param
    root = tmp_path_factory.mktemp(f"harbor-e2e-{build.value}")
    case_ids = one_case_per_task(examples_dataset, 4)
    decisions = {c: ("pass" if i % 2 == 0 else "fail") for i, c in enumerate(case_ids)}
    probe = _probe(_secrets(examples_dataset, case_ids))
    tasks = root / "tasks"
    exported = export_tasks(examples_dataset, case_ids, load_skill(SKILL), tasks,
                            ExportOptions(image=judge_image, build=build))
    assert exported.errors == {}
    server = FakeMessagesServer().start()
    job = root / "jobs" / "job"
    try:
        harbor_judge = ScriptedJudge(decisions, probe)
        server.responder = harbor_judge
        with ImageWatch(job) as images:
            run = subprocess.run(harbor_run_argv(harbor_cli, tasks, root / "jobs", "job",
                                                 server.base_url, concurrency=4),
                                 cwd=root, env=harbor_env(), capture_output=True, text=True,
                                 timeout=900)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:] + describe_trials(job)
        # Every later test reads these trials: one that Harbor ended with an exception is the
        # failure to report, with what it raised.
        assert failed_trials(job) == [], describe_trials(job)
        collect = subprocess.run(
            [str(VENV_BIN / "judge-runner"), "harbor", "collect", str(root / "jobs" / "job"),
             "--out", str(root / "harbor-run")], capture_output=True, text=True, timeout=300)
        assert collect.returncode == 0, collect.stderr
        eval_judge = ScriptedJudge(decisions, probe)
        server.responder = eval_judge
        split = root / "cases.txt"
        split.write_text("\n".join(case_ids) + "\n")
        evaluated = subprocess.run(
            [str(VENV_BIN / "judge-runner"), "eval", str(examples_dataset.root), "--split",
             str(split), "--judge", "agent", "--skill", str(SKILL), "--model", MODEL,
             "--base-url", server.base_url, "--sandbox", "docker", "--run-dir",
             str(root / "eval-run"), "--no-progress"],
            capture_output=True, text=True, timeout=600,
            env={**harbor_env(), "JUDGE_RUNNER_SANDBOX_IMAGE": judge_image})
        assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    finally:
        server.stop()
        remove_trial_leftovers(tasks)
    return Scenario(build, images, examples_dataset, case_ids, decisions, tasks, job,
                    root / "harbor-run", root / "eval-run", harbor_judge, eval_judge)


def test_only_build_tasks_build_images(scenario: Scenario) -> None:
    # The watch polled the engine all through the job; in build mode the same watch sees every
    # task's image (the control that it would see one).
    assert scenario.images.polls >= 10
    if scenario.build is TaskBuild.PREBUILT:
        assert scenario.images.built == {}
        # These small cases went inside JudgeAgent's setup command (test_resume covers uploads).
        for case_id in scenario.case_ids:
            files = layout.TaskFiles.find(scenario.tasks / case_id)
            assert upload.pack(files.root, upload.DEFAULT_INLINE_BYTES) is not None
    else:
        assert len(scenario.images.built) == len(scenario.case_ids), scenario.images.built


def test_harbor_run_gives_the_same_verdicts_and_metrics_as_eval(scenario: Scenario) -> None:
    harbor_records = {r.case_id: r for r in load_records(scenario.harbor_run)}
    eval_records = {r.case_id: r for r in load_records(scenario.eval_run)}
    assert sorted(harbor_records) == sorted(eval_records) == scenario.case_ids
    for case_id, expected in scenario.decisions.items():
        harbor_record, eval_record = harbor_records[case_id], eval_records[case_id]
        assert harbor_record.decision.value == eval_record.decision.value == expected
        assert harbor_record.label == eval_record.label
        assert harbor_record.domain == eval_record.domain
        assert harbor_record.verdict.citations == eval_record.verdict.citations == ["I1"]
    harbor_summary = load_summary(scenario.harbor_run)
    eval_summary = load_summary(scenario.eval_run)
    assert harbor_summary.metrics == eval_summary.metrics
    assert harbor_summary.metrics is not None and harbor_summary.metrics.n == 4
    # Same judge configuration (model, JudgeSkill hash, prompt, budgets) → same run identity.
    assert harbor_summary.config_hash == eval_summary.config_hash
    assert (scenario.harbor_run / "report.html").is_file()


def test_the_label_is_not_reachable_from_inside_the_task_container(scenario: Scenario) -> None:
    for judge in (scenario.harbor_judge, scenario.eval_judge):
        assert sorted(judge.outputs) == scenario.case_ids
        for case_id, output in judge.outputs.items():
            assert "no-tests-dir" in output, output
            # The Harbor task carries the JudgeSkill in Harbor's skills dir.
            assert ("skill-present" in output) == (judge is scenario.harbor_judge), output
            assert "writable:" not in output, output
            assert "tests-dir-present" not in output
            assert "label-file:" not in output, output
            assert "needle-in:" not in output, output
            assert "control: /case/case.json" in output, (case_id, output)
            # read_file came back intact through the sandbox (base64 through Harbor's exec).
            case_json = (scenario.dataset.cases_dir / case_id / "case.json").read_text()
            assert case_json[:200] in judge.reads[case_id], judge.reads[case_id][:500]


def test_rewards_follow_the_verdicts_and_the_judge_cannot_write_them(scenario: Scenario) -> None:
    labels = scenario.dataset.labels()
    trials = sorted(p for p in scenario.job.iterdir() if (p / "result.json").is_file())
    assert len(trials) == 4
    for trial in trials:
        result = json.loads((trial / "result.json").read_text())
        details = json.loads((trial / "verifier" / layout.DETAILS_FILE).read_text())
        case_id = details["case_id"]
        expected = 1.0 if scenario.decisions[case_id] == labels[case_id].label.value else 0.0
        assert result["verifier_result"]["rewards"] == {"reward": expected}, describe_trial(trial)
        assert result["exception_info"] is None, describe_trial(trial)
        assert details["decision"] == scenario.decisions[case_id]


def test_trials_carry_products_and_an_atif_trajectory_with_token_usage(
    scenario: Scenario,
) -> None:
    from harbor.models.trajectories import Trajectory

    for trial in sorted(p for p in scenario.job.iterdir() if (p / "result.json").is_file()):
        products = trial / "agent" / layout.PRODUCTS_SUBDIR
        for name in ("plan.md", "inspection_log.jsonl", "verdict.json", "transcript.jsonl",
                     layout.CONFIG_FILE):
            assert (products / name).is_file(), (name, describe_trial(trial))
        verdict = json.loads((products / "verdict.json").read_text())
        usage = verdict["usage"]
        trajectory = Trajectory.model_validate_json(
            (trial / "agent" / "trajectory.json").read_text())
        assert trajectory.agent.name == "judge-runner" and trajectory.agent.model_name == MODEL
        calls = [line for line in read_jsonl(products / "transcript.jsonl")
                 if line.get("kind") == "model_call"]
        assert len([s for s in trajectory.steps if s.source == "agent"]) == len(calls) == 4
        metrics = trajectory.final_metrics
        assert metrics is not None
        prompt = (usage["input_tokens"] + usage["cache_creation_input_tokens"]
                  + usage["cache_read_input_tokens"])
        assert metrics.total_prompt_tokens == prompt > 0
        assert metrics.total_completion_tokens == usage["output_tokens"] > 0
        assert metrics.total_cached_tokens == usage["cache_read_input_tokens"]
        agent_result = json.loads((trial / "result.json").read_text())["agent_result"]
        assert agent_result["n_input_tokens"] == prompt
        assert agent_result["n_output_tokens"] == usage["output_tokens"]


def test_collect_turns_missing_or_bad_verdict_files_into_errors(
    scenario: Scenario, tmp_path: Path
) -> None:
    job = tmp_path / "job"
    shutil.copytree(scenario.job, job, symlinks=True)
    trials = sorted(p for p in job.iterdir() if (p / "result.json").is_file())
    by_case = {json.loads((t / "verifier" / layout.DETAILS_FILE).read_text())["case_id"]: t
               for t in trials}
    missing, malformed, tampered, intact = scenario.case_ids
    (by_case[missing] / "agent" / "judge" / "verdict.json").unlink()
    (by_case[missing] / "agent" / "judge" / layout.CONFIG_FILE).unlink()  # died before recording
    (by_case[malformed] / "agent" / "judge" / "verdict.json").write_text("{not json")
    tampered_path = by_case[tampered] / "agent" / "judge" / "verdict.json"
    data = json.loads(tampered_path.read_text())
    data["decision"] = "fail" if data["decision"] == "pass" else "pass"
    tampered_path.write_text(json.dumps(data))
    result = collect_job(job, tmp_path / "run", write_reports=False)
    records = {r.case_id: r for r in result.records}
    assert records[missing].decision is Decision.ERROR
    assert "no verdict file" in str(records[missing].verdict.error)
    assert records[malformed].decision is Decision.ERROR
    assert "malformed verdict file" in str(records[malformed].verdict.error)
    assert records[tampered].decision is Decision.ERROR
    assert "the verifier read" in str(records[tampered].verdict.error)
    assert records[intact].decision.value == scenario.decisions[intact]
    metrics = result.summary.metrics
    assert metrics is not None and metrics.n_error == 3 and metrics.n == 4
    assert result.run.info.config_hash == load_summary(scenario.harbor_run).config_hash

    config_path = by_case[intact] / "agent" / "judge" / layout.CONFIG_FILE
    config = json.loads(config_path.read_text())
    config["config"]["model"] = "another-model"
    config_path.write_text(json.dumps(config))
    with pytest.raises(CollectError, match="mixes 2 judge configurations"):
        collect_job(job, tmp_path / "run2", write_reports=False)


def test_collect_finds_moved_tasks_with_tasks_dir(scenario: Scenario, tmp_path: Path) -> None:
    job = tmp_path / "job"
    shutil.copytree(scenario.job, job, symlinks=True)
    for result_path in job.glob("*/result.json"):  # as if `harbor run` ran from elsewhere
        result = json.loads(result_path.read_text())
        result["config"]["task"]["path"] = "somewhere/" + Path(
            result["config"]["task"]["path"]).name
        result_path.write_text(json.dumps(result))
    with pytest.raises(CollectError, match="no finished trial"):
        collect_job(job, tmp_path / "lost", write_reports=False)
    found = collect_job(job, tmp_path / "run", write_reports=False, tasks_dir=scenario.tasks)
    assert found.skipped == {}
    assert {r.case_id: r.decision.value for r in found.records} == scenario.decisions


def test_compare_pairs_a_harbor_run_with_an_eval_run(scenario: Scenario, tmp_path: Path) -> None:
    out = tmp_path / "comparison.json"
    done = subprocess.run(
        [str(VENV_BIN / "judge-runner"), "compare", str(scenario.harbor_run),
         str(scenario.eval_run), "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    comparison = json.loads(out.read_text())
    assert comparison["n_shared"] == comparison["n_paired"] == 4
    assert comparison["changed"] == [] and comparison["only_a"] == comparison["only_b"] == 0
