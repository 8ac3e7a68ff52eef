"""Evolution with the real agent judge in a LocalSandbox: every judge and optimizer call goes
through the anthropic SDK to the scripted Messages server, and no judge request ever carries
verifier evidence or a label."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judge_runner.evolve.state import CandidateStatus
from judge_runner.judges import Judge
from judge_runner.judges.registry import JudgeOptions, build_judge
from tests.casebuilder import dev_pool
from tests.evolve.helpers import model_evolution, write_skill
from tests.evolve.test_loop import rewriting_optimizer
from tests.fakeapi.server import FakeMessagesServer, ReceivedRequest, Reply, reply, tool_use
from tests.injection import unfenced

_RULE = re.compile(r"^- fail-on: (\S+)\s*$", re.MULTILINE)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    assert isinstance(content, list)
    return "\n".join(str(b.get("text") or b.get("content") or "") for b in content)


def agent_judge_model(request: ReceivedRequest) -> Reply:
    """A judge model that reads the answer file and fails it on any signal its skill lists."""
    body = request.body
    messages = body["messages"]
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if turn == 0:
        return reply(
            tool_use(
                "write_plan",
                {
                    "items": [
                        {
                            "id": "P1",
                            "what": "the run's answer carries no failure signal",
                            "where": "/case/artifacts/answer.txt",
                            "support": "no listed signal",
                            "refute": "a listed signal",
                            "critical": True,
                        }
                    ]
                },
                id="tu_plan",
            )
        )
    if turn == 1:
        return reply(tool_use("bash", {"command": "cat /case/artifacts/answer.txt"}, id="tu_cat"))
    if turn == 2:
        answer = unfenced(_text(messages[-1]["content"])).strip().splitlines()[-1].strip()
        signals = _RULE.findall(_text(body["system"]))
        hit = next((s for s in signals if s in answer), None)
        return reply(
            tool_use(
                "record_inspection",
                {
                    "plan_item": "P1",
                    "check": "read the answer file",
                    "finding": f"signal {hit}" if hit else "no listed signal",
                    "outcome": "refutes" if hit else "supports",
                    "critical": True,
                    "evidence": [{"tool_call_id": "tu_cat", "quote": answer}],
                },
                id="tu_rec",
            )
        )
    refuted = '"refutes"' in json.dumps(messages[-2]["content"])
    decision = "fail" if refuted else "pass"
    return reply(
        tool_use(
            "submit_verdict",
            {"decision": decision, "rationale": decision, "citations": ["I1"]},
            id="tu_verdict",
        )
    )


def route(request: ReceivedRequest) -> Reply:
    names = {t["name"] for t in request.body.get("tools", [])}
    return rewriting_optimizer(request) if "propose_skill" in names else agent_judge_model(request)


def test_agent_judge_evolution_keeps_evidence_offline(
    tmp_path: Path, fake_api: FakeMessagesServer
) -> None:
    fake_api.responder = route
    pool = dev_pool(tmp_path, n_tasks=2, per_task=8, gate_fail=4, gate_pass=2)
    dataset_dir = pool[0]
    skill = write_skill(tmp_path / "judgeskills")
    run_dir = tmp_path / "evolve"

    def make_judge(skill_dir: Path) -> Judge:
        return build_judge(
            "agent",
            JudgeOptions(
                skill=skill_dir, model="fake-judge", base_url=fake_api.base_url, sandbox="local"
            ),
        )

    state = model_evolution(
        pool, skill, run_dir, make_judge, fake_api.base_url, judge="agent",
        judge_model="fake-judge", base_url=fake_api.base_url, sandbox="local", rounds=1,
        sample_size=6, seed=5,
    ).run()

    assert [c.status for c in state.candidates] == [CandidateStatus.PROMOTED]
    assert state.initial_gate is not None and state.incumbent_gate is not None
    assert state.incumbent_gate.gate_score > state.initial_gate.gate_score
    assert state.spend.judge_calls > 0 and state.spend.optimizer_calls == 1

    judge_bodies = [
        b for b in fake_api.bodies if "propose_skill" not in {t["name"] for t in b.get("tools", [])}
    ]
    optimizer_bodies = [b for b in fake_api.bodies if b not in judge_bodies]
    evidence_lines = {
        line.strip()
        for p in (dataset_dir / "evidence").rglob("*.json")
        for t in json.loads(p.read_text())["results"]["tests"]
        for line in t["message"].splitlines()
    }
    label_lines = set((dataset_dir / "labels.jsonl").read_text().splitlines())
    assert evidence_lines and label_lines and judge_bodies
    for body in judge_bodies:
        wire = json.dumps(body)
        assert not any(line in wire for line in evidence_lines | label_lines)
    # The optimizer did receive the verifier's account: the scan above could have found it.
    assert any(line in json.dumps(optimizer_bodies) for line in evidence_lines)
