"""A scripted agent-judge session for the fake Messages API, reacting to each request.

One session per case, four model turns: write_plan → bash (the given command) and read_file (the
given path) in one turn → record_inspection quoting the first line of the real bash output →
submit_verdict with the decision given for the
case (read from the case overview, "# Case <id>"). Because it reacts to the conversation, any
number of cases can be judged concurrently against one server, by `judge-runner eval` or by
Harbor, with the same outcome.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakeapi.server import ReceivedRequest, Reply, Scripted, reply, text, tool_use
from tests.injection import unfenced

_CASE = re.compile(r"^# Case (\S+)", re.MULTILINE)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def case_id_of(body: dict[str, Any]) -> str:
    first = body["messages"][0]
    found = _CASE.search("".join(b.get("text", "") for b in _blocks(first)))
    if found is None:
        raise AssertionError("the first user message does not name the case")
    return found.group(1)


def tool_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool_use_id, tool output) of each tool result in the last message, in order."""
    results = []
    for block in _blocks(body["messages"][-1]):
        if block.get("type") == "tool_result":
            content = block.get("content")
            if isinstance(content, list):
                content = "".join(b.get("text", "") for b in content)
            call_id = str(block["tool_use_id"])
            # what the tool returned, without the `call id: <id>` line the judge puts first and
            # the lines of the case's fence around it
            results.append((call_id, unfenced(str(content).removeprefix(f"call id: {call_id}\n"))))
    return results


class ScriptedJudge:
    """Responder: `fake_api.responder = ScriptedJudge({"case-a": "pass", ...}, command)`.

    `command` is what the judge runs with bash; `outputs` collects the tool results it saw, per
    case (tests assert on them, e.g. to prove what was reachable from inside the sandbox).
    """

    def __init__(self, decisions: dict[str, str], command: str = "jq -r .task /case/case.json",
                 read_path: str = "/case/case.json"):
        self.decisions = decisions
        self.command = command
        self.read_path = read_path
        self.outputs: dict[str, str] = {}
        self.reads: dict[str, str] = {}

    def __call__(self, request: ReceivedRequest) -> Scripted:
        body = request.body
        case_id = case_id_of(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn == 0:
            return reply(text("Planning."), tool_use("write_plan", {"items": [{
                "id": "P1", "what": "the case names its task", "where": "/case/case.json",
                "support": "a task name", "refute": "no task name", "critical": True}]}))
        if turn == 1:
            return reply(tool_use("bash", {"command": self.command}),
                         tool_use("read_file", {"path": self.read_path}))
        if turn == 2:
            (call_id, output), (_, read) = tool_results(body)
            self.outputs[case_id] = output
            self.reads[case_id] = read
            quote = next((line.strip() for line in output.splitlines() if line.strip()), "")
            return reply(tool_use("record_inspection", {
                "plan_item": "P1", "check": self.command, "finding": f"output: {quote}",
                "outcome": "supports", "evidence": [{"tool_call_id": call_id,
                                                     "quote": quote or "(empty)"}]}))
        return self._verdict(case_id)

    def _verdict(self, case_id: str) -> Reply:
        decision = self.decisions[case_id]
        return reply(tool_use("submit_verdict", {
            "decision": decision, "rationale": f"scripted {decision} for {case_id}",
            "citations": ["I1"]}))
