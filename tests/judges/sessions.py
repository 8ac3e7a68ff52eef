"""Scripted judge sessions for the fake Messages API: what a well-behaved judge model sends.

Tool-use ids are fixed so that later steps can cite earlier calls; quotes are exact text the
real sandbox prints for the cases of `tests.casebuilder.summing_dataset`.
"""

from __future__ import annotations

from typing import Any

from tests.fakeapi import Reply, reply, tool_use

PLAN = {"items": [
    {"id": "P1", "what": "out.json holds the right total", "where": "/case/artifacts/root/out.json",
     "support": "total is 42", "refute": "any other total or no file", "critical": True},
    {"id": "P2", "what": "final claim matches the artifact", "where": "trajectory final_message",
     "support": "same total", "refute": "different total"},
]}

FINAL_MESSAGE_CMD = (
    "python3 -c \"import json; print(json.load(open('/case/trajectory.json'))['final_message'])\""
)


def plan(call_id: str = "tu_plan") -> Reply:
    return reply(tool_use("write_plan", PLAN, id=call_id))


def bash(command: str, call_id: str) -> Reply:
    return reply(tool_use("bash", {"command": command}, id=call_id))


def inspection(plan_item: str, call_id: str, quote: str, outcome: str,
               rec_id: str, critical: bool = False) -> Reply:
    return reply(tool_use("record_inspection", {
        "plan_item": plan_item, "check": "read the output", "finding": f"saw {quote}",
        "outcome": outcome, "critical": critical,
        "evidence": [{"tool_call_id": call_id, "quote": quote}],
    }, id=rec_id))


def verdict(decision: str, citations: list[str], call_id: str = "tu_verdict",
            confidence: float = 0.9) -> Reply:
    return reply(tool_use("submit_verdict", {
        "decision": decision, "rationale": f"{decision}: see {', '.join(citations) or 'nothing'}",
        "citations": citations, "confidence": confidence,
    }, id=call_id))


def inspections(total: int) -> list[Reply]:
    """Plan is assumed written: two real checks, each recorded with a verifiable quote."""
    outcome = "supports" if total == 42 else "refutes"
    return [
        bash("cat /case/artifacts/root/out.json", "tu_bash_artifact"),
        inspection("P1", "tu_bash_artifact", f'"total": {total}', outcome, "tu_rec1", True),
        bash(FINAL_MESSAGE_CMD, "tu_bash_final"),
        inspection("P2", "tu_bash_final", f"Done: total is {total}.", "supports", "tu_rec2"),
    ]


def good_session(total: int) -> list[Reply]:
    decision = "pass" if total == 42 else "fail"
    return [plan(), *inspections(total), verdict(decision, ["I1", "I2"])]


def raw_tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message of a request body, as sent."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return []
    return [b for b in content if b.get("type") == "tool_result"]


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message, each without the `call id: <id>` line
    the judge puts first (what the tool itself returned)."""
    out = []
    for block in raw_tool_results(body):
        prefix = f"call id: {block['tool_use_id']}\n"
        text = block.get("content", "")
        assert isinstance(text, str) and text.startswith(prefix), text[:80]
        out.append({**block, "content": text[len(prefix):]})
    return out


def first_line(text: str, limit: int = 60) -> str:
    """The first non-blank line of `text`, stripped and cut to `limit` characters."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line[:limit]


def bundled_session(artifact: str, artifact_text: str, final_message: str,
                    decision: str) -> list[Reply]:
    """A session over a real imported case: quotes are taken from the package's own files and
    must match what the sandbox prints for them."""
    return [
        plan(),
        bash(f"head -c 4000 /case/artifacts/{artifact}", "tu_bash_artifact"),
        inspection("P1", "tu_bash_artifact", first_line(artifact_text), "supports", "tu_rec1"),
        bash(FINAL_MESSAGE_CMD, "tu_bash_final"),
        inspection("P2", "tu_bash_final", first_line(final_message), "supports", "tu_rec2"),
        reply(tool_use("read_file", {"path": "/case/trajectory.json", "limit": 3000},
                       id="tu_read")),
        inspection("P2", "tu_read", '"case_id"', "inconclusive", "tu_rec3"),
        verdict(decision, ["I1", "I2", "I3"]),
    ]


def responder_for(scripts: dict[str, list[Reply]]) -> Any:
    """A fake-server responder serving several cases at once (concurrent runs): the case is read
    from the first user message, the turn from the number of assistant messages so far."""

    def respond(request: Any) -> Reply:
        messages = request.body["messages"]
        first = messages[0]["content"]
        first_text = first if isinstance(first, str) else first[0]["text"]
        case_id = first_text.splitlines()[0].removeprefix("# Case ").strip()
        turn = sum(1 for m in messages if m["role"] == "assistant")
        return scripts[case_id][turn]

    return respond
