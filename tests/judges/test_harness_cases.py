"""The judges read every harness's cases the same way: one real trial of each harness (Claude
Code, terminus-2, gemini-cli) judged by the rules judge and by the direct judge through the SDK
and the scripted Messages server, whose requests carry each case rendered in the one step
format; the agent judge's overview, the checklist's step rendering and the viewer read them
too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_runner.cases import Dataset, StepKind
from judge_runner.checklist.evidence import render_step
from judge_runner.cli.root import app
from judge_runner.core import Decision
from judge_runner.judges.agent.prompt import render_case
from judge_runner.judges.direct import make_judge
from judge_runner.judges.registry import JudgeOptions, build_judge
from tests import casebuilder
from tests.fakeapi import FakeMessagesServer, reply, tool_use

pytestmark = pytest.mark.shared
# One trial per harness: name -> (trial name, a tool its steps call)
TRIALS = {"claude-code": ("exceltable-in-ppt__7k6ijVq", "Bash"),
          "terminus-2": ("adaptive-cruise-control__2EwRXdJ", "terminal"),
          "gemini-cli": ("mars-clouds-clustering__db4eGzP", "run_shell_command")}
STEP_HEAD = re.compile(r"^\[(\d+)\] (assistant_message|tool_call|skill_use|notice)", re.M)


@pytest.fixture(scope="module")
def harness_cases(every_harness: Path) -> Dataset:
    data = Dataset(every_harness)
    chosen = [c.id for c in data.cases() if c.meta.source.trial_name in
              {trial for trial, _ in TRIALS.values()}]
    casebuilder.register_case_secrets(every_harness, chosen)
    return data


def _case_of(data: Dataset, harness: str) -> str:
    trial = TRIALS[harness][0]
    matches = [c.id for c in data.cases() if c.meta.source.trial_name == trial]
    if not matches:
        pytest.skip(f"trial {trial} is not among the shared trials")
    return matches[0]


@pytest.mark.parametrize("harness", sorted(TRIALS))
def test_rules_judge_decides_every_harness(harness_cases: Dataset, harness: str,
                                           tmp_path: Path) -> None:
    judge = build_judge("rules", JudgeOptions())
    verdict = judge.judge(harness_cases.case(_case_of(harness_cases, harness)), tmp_path / "o")
    assert verdict.decision in (Decision.PASS, Decision.FAIL), verdict.error


@pytest.mark.parametrize("harness", sorted(TRIALS))
def test_direct_judge_sees_each_harness_in_the_one_step_format(
        harness_cases: Dataset, harness: str, fake_api: FakeMessagesServer,
        tmp_path: Path) -> None:
    case = harness_cases.case(_case_of(harness_cases, harness))
    fake_api.push(reply(tool_use("submit_verdict", {"decision": "fail", "rationale": "x"})))
    options = JudgeOptions(model="claude-test", base_url=fake_api.base_url,
                           extra={"timeout_s": 5.0})
    verdict = make_judge(options).judge(case, tmp_path / "o")
    assert verdict.decision is Decision.FAIL
    user = fake_api.bodies[0]["messages"][0]["content"]
    text = user if isinstance(user, str) else json.dumps(user)
    heads = STEP_HEAD.findall(text)
    assert heads, "no step rendered"
    kinds = {kind for _, kind in heads}
    assert {"assistant_message", "tool_call"} <= kinds
    assert f"tool_call {TRIALS[harness][1]}" in text
    assert '"command":' in text and "output: " in text
    assert "You are an AI assistant tasked with" not in text  # terminus' own system prompt
    assert case.instruction.strip()[:200] in text


@pytest.mark.parametrize("harness", sorted(TRIALS))
def test_overview_checklist_and_viewer_read_every_harness(
        harness_cases: Dataset, harness: str) -> None:
    case = harness_cases.case(_case_of(harness_cases, harness))
    overview = render_case(case, 4000)
    assert case.meta.task in overview
    rendered = [render_step(s) for s in case.trajectory.steps]
    calls = [r for r, s in zip(rendered, case.trajectory.steps, strict=True)
             if s.kind is StepKind.TOOL_CALL]
    assert calls and all(r.startswith(f"tool_call tool={TRIALS[harness][1]}") or "tool=" in r
                         for r in calls)


def test_the_viewer_shows_every_harness(harness_cases: Dataset, tmp_path: Path) -> None:
    ids = [_case_of(harness_cases, h) for h in sorted(TRIALS)]
    split = tmp_path / "ids.txt"
    split.write_text("\n".join(ids) + "\n")
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", str(harness_cases.root), "--judge", "rules",
                                      "--split", str(split), "--run-dir", str(run),
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(app, ["view", str(run)]).exit_code == 0
    pages = {p.read_text() for p in (run / "view" / "cases").glob("*.html")}
    assert len(pages) == 3
    for tool in ("terminal", "run_shell_command", "Bash"):
        assert any(tool in page for page in pages), tool


def test_rules_judge_and_digest_over_every_case_of_every_harness(harness_cases: Dataset,
                                                                 tmp_path: Path) -> None:
    from judge_runner.judges.digest import render_digest

    judge = build_judge("rules", JudgeOptions())
    for case in harness_cases.cases():
        verdict = judge.judge(case, tmp_path / case.id)
        assert verdict.decision in (Decision.PASS, Decision.FAIL), (case.id, verdict.error)
        text, selection = render_digest(case, 8000)
        assert not selection.over_budget and STEP_HEAD.search(text), case.id
