"""The evolution loop end to end: a model optimizer through the real SDK against the fake
Messages server, a judge whose verdicts depend on its skill, promotion through the gate."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from judge_runner.evolve.loop import Evolution
from judge_runner.evolve.optimizer import ModelOptimizer, ProposalRequest
from judge_runner.evolve.state import CandidateStatus, EvolveState, Strategy
from judge_runner.models import AnthropicClient
from judge_runner.skills import load_lineage
from tests.casebuilder import dev_pool
from tests.evolve.helpers import model_evolution, write_skill
from tests.evolve.skill_judge import SkillJudge
from tests.fakeapi.server import (
    FakeMessagesServer,
    HttpError,
    ReceivedRequest,
    Reply,
    reply,
    tool_use,
)

_SKILL_IN_REQUEST = re.compile(r"## File: SKILL.md\n````\n(.*?)\n````", re.DOTALL)


def rewriting_optimizer(request: ReceivedRequest) -> Reply:
    """First rewrite adds a good rule (fixes gate cases); any later one adds a harmful rule."""
    user = request.body["messages"][0]["content"]
    current = _SKILL_IN_REQUEST.search(user)
    assert current is not None, "the optimizer request must carry the current SKILL.md"
    skill_md = current.group(1).replace('version: "1"', 'version: "2"')
    if "- fail-on: traceback" not in skill_md:
        new, why = skill_md + "\n- fail-on: traceback\n", "unresolved tracebacks fail a run"
    else:
        new, why = skill_md + "\n- fail-on: ok\n", "distrust runs that only say ok"
    return reply(tool_use("propose_skill", {"skill_md": new, "rationale": why}))


def make_evolution(tmp: Path, server: FakeMessagesServer, rounds: int = 2) -> Evolution:
    return model_evolution(dev_pool(tmp), write_skill(tmp / "judgeskills"), tmp / "evolve",
                           SkillJudge, server.base_url, judge="skill-test", rounds=rounds,
                           sample_size=20, seed=7)


def test_good_rewrite_is_promoted_and_harmful_one_rejected(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    fake_api.responder = rewriting_optimizer
    state = make_evolution(tmp_path, fake_api).run()

    first, second = state.candidates
    assert first.strategy is Strategy.HARDEN and first.status is CandidateStatus.PROMOTED
    assert second.status is CandidateStatus.REJECTED
    assert state.initial_gate is not None and first.gate is not None and second.gate is not None
    assert first.gate.gate_score > state.initial_gate.gate_score
    assert second.gate.gate_score < first.gate.gate_score
    assert state.stop_reason == "all rounds done"

    v2 = tmp_path / "judgeskills" / "v2"
    assert Path(state.incumbent_dir) == v2
    assert "- fail-on: traceback" in (v2 / "SKILL.md").read_text()
    assert "- fail-on: ok" not in (v2 / "SKILL.md").read_text()
    entry = load_lineage(tmp_path / "judgeskills").get("v2")
    assert entry is not None and entry.parent == "v1" and entry.origin.value == "evolved"
    assert entry.gate is not None and entry.gate.gate_score == pytest.approx(first.gate.gate_score)
    diff = (tmp_path / "evolve" / "candidates" / f"{first.id}.diff").read_text()
    assert "+- fail-on: traceback" in diff
    # Two optimizer calls, both through the SDK; each carried one strategy brief.
    assert len(fake_api.bodies) == 2
    assert all(
        "# Strategy: false_pass_hardening" in b["messages"][0]["content"] for b in fake_api.bodies
    )


def test_gate_is_judged_once_per_skill_and_case(
    tmp_path: Path, fake_api: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls.log"
    monkeypatch.setenv("JR_TEST_CALLS_LOG", str(calls))
    fake_api.responder = rewriting_optimizer
    evolution = make_evolution(tmp_path, fake_api)
    state = evolution.run()
    evolution.run()  # a repeated run of a finished evolution pays nothing again

    lines = calls.read_text().splitlines()
    assert len(lines) == len(set(lines)), "some (skill, case) pair was judged twice"
    gate = set(state.config.gate_ids)
    skills_gated = {line.split()[0] for line in lines if line.split()[1] in gate}
    assert len(skills_gated) == 3  # v1, the promoted candidate, the rejected one
    # Judge spend is what the judge reported, once per judged pair.
    assert state.spend.judge_calls == len(lines)


def test_no_verifier_evidence_reaches_a_judge(tmp_path: Path, fake_api: FakeMessagesServer) -> None:
    """Evidence is read only into the briefs (optimizer side); judges read case packages."""
    fake_api.responder = rewriting_optimizer
    evolution = make_evolution(tmp_path, fake_api, rounds=1)
    evolution.run()
    evidence = [p.read_text() for p in (tmp_path / "dataset" / "evidence").rglob("*.json")]
    messages = {
        json.loads(t)["results"]["tests"][0]["message"]
        for t in evidence
        if json.loads(t)["results"]["tests"]
    }
    case_files = [
        p.read_text(errors="replace")
        for p in (tmp_path / "dataset" / "cases").rglob("*")
        if p.is_file()
    ]
    assert not any(m in f for m in messages for f in case_files)
    # ...while the optimizer's brief did carry the verifier's account of the failures.
    brief = fake_api.bodies[0]["messages"][0]["content"]
    assert any(m in brief for m in messages), "the brief lacks the failed tests' messages"


def test_resume_after_crash_matches_uninterrupted_run(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    fake_api.responder = rewriting_optimizer
    reference = make_evolution(tmp_path / "a", fake_api).run()

    class Crash(Exception):
        pass

    steps = 0

    def crash_on_fifth_step(_: EvolveState) -> None:
        nonlocal steps
        steps += 1
        if steps == 5:
            raise Crash

    interrupted = make_evolution(tmp_path / "b", fake_api)
    interrupted.on_step = crash_on_fifth_step
    with pytest.raises(Crash):
        interrupted.run()
    interrupted.on_step = None
    resumed = interrupted.run()

    def outline(s: EvolveState) -> list[tuple[str, str, float | None]]:
        return [(c.id, c.status.value, c.gate.gate_score if c.gate else None) for c in s.candidates]

    assert outline(resumed) == outline(reference)
    assert len(resumed.promotions()) == 1
    assert resumed.spend.judge_calls == reference.spend.judge_calls


def test_an_answered_optimizer_request_is_not_paid_again(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    """After a kill between the optimizer's answer and the saved state, the same request is
    answered from the optimizer's transcript; spend counts the call once."""
    fake_api.responder = rewriting_optimizer
    skill = write_skill(tmp_path / "judgeskills")
    client = AnthropicClient(base_url=fake_api.base_url)
    transcript = tmp_path / "optimizer" / "transcript.jsonl"
    request = ProposalRequest(
        parent_dir=skill,
        strategy=Strategy.HARDEN,
        strategy_brief="b",
        shared_brief="s",
        out_dir=tmp_path / "c1",
        seed=0,
    )
    first = ModelOptimizer(client, "fake-optimizer", transcript).propose(request)
    again = ModelOptimizer(client, "fake-optimizer", transcript).propose(
        replace(request, out_dir=tmp_path / "c2")
    )
    assert len(fake_api.bodies) == 1
    assert (first.skill_dir / "SKILL.md").read_text() == (again.skill_dir / "SKILL.md").read_text()
    spent = ModelOptimizer(client, "fake-optimizer", transcript).spent()
    assert spent.calls == 1 and spent.output_tokens > 0


def test_malformed_and_off_format_rewrites_are_rejected_cleanly(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    """What small models answer: prose instead of the tool call, then a call whose SKILL.md is
    a bare word (the real 0.5B model wrote the strategy's name). Neither crashes the loop,
    reaches the gate or touches the skills' lineage; each is recorded with its reason."""
    answers = iter([
        reply({"type": "text", "text": '```json\n{"skill_md": "unfinished'}),
        reply(tool_use("propose_skill", {"skill_md": "false_pass_hardening",
                                         "rationale": "harden"})),
    ])
    fake_api.responder = lambda request: next(answers)
    skills_root = tmp_path / "judgeskills"
    state = make_evolution(tmp_path, fake_api, rounds=2).run()

    assert state.stop_reason == "all rounds done"
    first, second = state.candidates
    assert first.status is CandidateStatus.INVALID  # an answer arrived: invalid, not failed
    assert first.reason == "optimizer answered without calling propose_skill"
    assert second.status is CandidateStatus.INVALID
    assert second.reason is not None and "front matter" in second.reason
    assert first.gate is None and second.gate is None
    assert Path(state.incumbent_dir) == skills_root / "v1"
    assert sorted(p.name for p in skills_root.iterdir() if p.is_dir()) == ["v1"]
    assert load_lineage(skills_root).get("v2") is None


def test_an_answer_with_unsafe_reference_names_is_an_invalid_candidate(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    """A small model put prose keys into `references` ({"file": ..., "check": ...}). The answer
    arrived but cannot be used: the candidate is recorded invalid with the names (as a rewrite
    without front matter is), nothing is written under candidates/ and nothing is gated. Only
    an optimizer call that got no answer is recorded as failed."""
    answers = iter([
        reply(tool_use("propose_skill", {
            "skill_md": "---\nname: x\ndescription: y\n---\nJudge carefully.\n",
            "references": {"file": "SKILL.md", "check": "the output exists"},
            "rationale": "harden"})),
    ])
    fake_api.responder = lambda request: next(answers)
    skills_root = tmp_path / "judgeskills"
    state = make_evolution(tmp_path, fake_api, rounds=1).run()

    (cand,) = state.candidates
    assert cand.status is CandidateStatus.INVALID, cand
    assert cand.reason == "propose_skill.references has unsafe file names: ['check', 'file']"
    assert cand.gate is None and cand.skill_dir is None
    assert not (tmp_path / "evolve" / "candidates" / cand.id).exists()
    assert sorted(p.name for p in skills_root.iterdir() if p.is_dir()) == ["v1"]


def test_an_optimizer_call_without_an_answer_is_a_failed_candidate(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    fake_api.responder = lambda request: HttpError(400, "invalid_request_error", "bad request")
    state = make_evolution(tmp_path, fake_api, rounds=1).run()
    (cand,) = state.candidates
    assert cand.status is CandidateStatus.FAILED, cand
    assert cand.reason is not None and cand.reason.startswith("optimizer model call failed")
