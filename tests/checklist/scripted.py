"""Scripted stand-ins for the synthesizer and judge models that answer only from their request.

Nothing here knows the bundled tasks: the synthesizer reads the instruction, the verifier files
and the test ids out of the `submit_checklist` request; the judge reads the checklist items and
the execution log out of the `record_judgments` request. Their rules are plain and written down,
so every answer can be checked by hand against the request that produced it.

Synthesizer:
- the instruction is cut into verbatim spans (sentences and list items);
- each verifier test becomes an assertion item quoting the span that shares the most words with
  the test (its name, body and the module constants it uses); a test sharing none is left out.
  A test whose name says "exists" gets an `artifact_exists` check on the path its span names;
- each span that asks for an output file (a list item, or a sentence with "write"/"add") gets a
  generated item: `csv_columns` when the span lists columns, else `artifact_exists` for a path
  no other item checks;
- the claim-versus-trace item comes last.

Judge (requirement items): the item's anchors are the instruction's backticked spans that name a
file or a command. The last tool step that mentions one (file contents being written do not
count: they are intentions, not observations) decides: Yes when that step succeeded, No when it
failed, each citing that step. No mention: Abstain.

Judge (claim-versus-trace item): the report's claims are its backticked paths, its decimal
numbers and any statement that tests passed. All backed by some tool step: Yes, citing the
first. A claim without a trace entry: No, quoting the claim from the report. No report or no
claim: Abstain.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from tests.fakeapi.server import HttpError, ReceivedRequest, Reply, reply, tool_use

# English function words and the vocabulary of test code itself (file handling, asserts), which
# says nothing about which requirement a test checks.
_STOP_WORDS = """a an and are as at be by do each every for from has have if in into is it its
not of on one or per such than that the their them then this to was with without you your
assert def return import lambda abs len open read text load loads dump path file data root
output out expected item key kv value row rows sum max min round test"""
STOP = frozenset(_STOP_WORDS.split())
_BREAK = re.compile(r"\n\s*\n|\n(?=- )|(?<=[.;])\s+(?=[A-Z`(-])")
_PATH = re.compile(r"`(/[^`\s]+)`")
_WRITERS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
# What can anchor an item in the log: a file path (with an extension) or a command. A bare folder
# such as `/app` occurs in nearly every step and would decide nothing.
_ANCHOR = re.compile(r"/[^/\s]+\.\w+$|\s")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z][a-z0-9]*", text.lower())} - STOP


def spans(instruction: str) -> list[str]:
    """Verbatim spans of the instruction (sentences, list items), long enough to quote."""
    found, start = [], 0
    for m in _BREAK.finditer(instruction):
        found.append(instruction[start:m.start()])
        start = m.end()
    found.append(instruction[start:])
    return [s.strip() for s in found if len(s.strip()) >= 12 and len(s.split()) >= 2]


def test_words(test_id: str, files: dict[str, str]) -> set[str]:
    """Words of a verifier test: its name, its body and the module constants the body uses."""
    file, *_, name = test_id.split("::")
    tree = ast.parse(files[file])
    constants = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name)}
    body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    used = {n.id for n in ast.walk(body) if isinstance(n, ast.Name)}
    text = " ".join([ast.unparse(body), *(ast.unparse(v) for k, v in constants.items()
                                         if k in used)])
    return words(text)


@dataclass(frozen=True)
class SynthRequest:
    instruction: str
    verifier_files: dict[str, str]  # file name (as in test ids) -> text
    test_ids: list[str]


def read_synth_request(request: ReceivedRequest) -> SynthRequest:
    text = request.body["messages"][0]["content"][0]["text"]
    instruction = re.search(r"<instruction>\n(.*)\n</instruction>", text, re.S)
    assert instruction is not None, "synthesizer request without an instruction"
    files = {m.group(1).rsplit("/", 1)[-1]: m.group(2) for m in
             re.finditer(r'<verifier file="tests/([^"]+)">\n(.*?)\n</verifier>', text, re.S)}
    listed = text.split("Verifier test ids (the only valid values of verifier_ref):", 1)[1]
    ids = re.findall(r"^- (\S+::\S+)$", listed, re.M)
    return SynthRequest(instruction.group(1), files, ids)


def synth_items(req: SynthRequest) -> list[dict[str, Any]]:
    candidates = spans(req.instruction)
    items: list[dict[str, Any]] = []
    checked: set[str] = set()
    for test_id in req.test_ids:
        name = test_id.rsplit("::", 1)[-1]
        mine = test_words(test_id, req.verifier_files)
        name_words = words(name.replace("_", " "))
        scores = [(len(name_words & words(s)), len(mine & words(s)), -i)
                  for i, s in enumerate(candidates)]
        best = max(scores)
        if best[:2] == (0, 0):
            continue
        span = candidates[-best[2]]
        item: dict[str, Any] = {
            "requirement": f"{name.removeprefix('test_').replace('_', ' ').capitalize()} "
                           "holds for the finished run",
            "quote": span, "verifier_ref": test_id, "route": "assertion"}
        paths = _PATH.findall(span)
        if "exist" in name_words and paths:
            item["check"] = {"kind": "artifact_exists", "path": paths[0]}
            checked.add(paths[0])
        items.append(item)
    for span in candidates:
        paths = _PATH.findall(span)
        asks_output = span.startswith("- `/") or re.search(r"\b(write|add)\b", span, re.I)
        if not paths or not asks_output:
            continue
        columns = re.search(r"columns `([^`]+)`", span)
        if columns:
            items.append({"requirement": f"The file {paths[0]} has the columns "
                                         f"{columns.group(1)}",
                          "quote": span, "route": "generated",
                          "check": {"kind": "csv_columns", "path": paths[0],
                                    "columns": columns.group(1).split(",")}})
        elif paths[-1] not in checked:
            items.append({"requirement": f"The run writes the file {paths[-1]}", "quote": span,
                          "route": "generated",
                          "check": {"kind": "artifact_exists", "path": paths[-1]}})
            checked.add(paths[-1])
    items.append({"requirement": "Every file, value and test result the final report claims "
                                 "has a matching entry in the trace",
                  "route": "judge", "kind": "claim_trace"})
    return items


def synth_responder(request: ReceivedRequest) -> Reply | HttpError:
    if [t["name"] for t in request.body.get("tools", [])] != ["submit_checklist"]:
        return HttpError(status=400, message="scripted synthesizer: unexpected request")
    return reply(tool_use("submit_checklist", {"items": synth_items(read_synth_request(request))}))


# --- judge ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    index: int
    text: str  # as rendered in the request

    @property
    def failed(self) -> bool:
        header = self.text.split("\n", 1)[0]
        return " ERROR" in header or bool(re.search(r"exit=[1-9]", header))

    @property
    def is_tool(self) -> bool:
        return self.text.startswith("tool_call")

    @property
    def observed(self) -> str:
        """What the step shows happened: a file writer's output line, not the content written."""
        header = self.text.split("\n", 1)[0]
        if any(f"tool={w}" == part for w in _WRITERS for part in header.split()):
            at = self.text.find("\noutput: ")
            return header + (self.text[at:] if at >= 0 else "")
        return self.text


@dataclass(frozen=True)
class JudgeRequest:
    items: list[tuple[str, str, str]]  # (id, kind, text of the item incl. its quote)
    steps: list[Step]
    report: str | None


def read_judge_request(request: ReceivedRequest) -> JudgeRequest:
    text = request.body["messages"][0]["content"][0]["text"]
    listed, log = text.split("\n\nExecution log of the run:\n", 1)
    items = [(m.group(1), m.group(2), m.group(3)) for m in
             re.finditer(r"^- (C\d+) \((\w+)\): (.*?)(?=^- C\d+ \(|\Z)", listed, re.M | re.S)]
    steps_block = log.split("<steps>\n", 1)[1].split("\n</steps>", 1)[0]
    parts = re.split(r"^\[step (\d+)\] ", steps_block, flags=re.M)
    steps = [Step(int(parts[i]), parts[i + 1].rstrip("\n")) for i in range(1, len(parts), 2)]
    report = log.split("<final_report>\n", 1)[1].split("\n</final_report>", 1)[0]
    return JudgeRequest(items, steps, None if report == "(no final report)" else report)


def _judgment(item_id: str, label: str, reason: str, kind: str = "", ref: str = "",
              quote: str = "") -> dict[str, Any]:
    evidence = [{"kind": kind, "ref": ref, "quote": quote}] if kind else []
    return {"item_id": item_id, "label": label, "reason": reason, "evidence": evidence}


def judge_requirement(item_id: str, text: str, steps: list[Step]) -> dict[str, Any]:
    anchors = [a for a in re.findall(r"`([^`]*/[^`]*)`", text) if _ANCHOR.search(a)]
    seen = [(s, a) for s in steps if s.is_tool for a in anchors if a in s.observed]
    if not seen:
        return _judgment(item_id, "abstain", "no tool step touches what the item names")
    step, anchor = seen[-1]
    label, how = ("no", "failed") if step.failed else ("yes", "succeeded")
    return _judgment(item_id, label, f"last step touching {anchor} {how}", "step",
                     str(step.index), anchor)


def report_claims(report: str) -> list[str]:
    claims = [p for p in re.findall(r"`([^`]*/[^`]*)`", report)]
    claims += re.findall(r"\d+\.\d+", report)
    claims += [m.group(0) for m in re.finditer(r"(?i)\b(?:all )?tests? pass\w*|\b\d+ passed",
                                               report)]
    return claims


def _backs(step: Step, claim: str) -> bool:
    if re.search(r"(?i)pass", claim) and not re.search(r"[./]", claim):
        return " passed" in step.text.split("\noutput: ", 1)[-1] and "\noutput: " in step.text
    return claim in step.text


def judge_claims(item_id: str, report: str | None, steps: list[Step]) -> dict[str, Any]:
    claims = report_claims(report or "")
    if report is None or not claims:
        return _judgment(item_id, "abstain", "no final report claims to check")
    tools = [s for s in steps if s.is_tool]
    for claim in claims:
        if not any(_backs(s, claim) for s in tools):
            return _judgment(item_id, "no", f"the report claims {claim!r}; no step shows it",
                             "report", "final", claim)
    first = next(s for s in tools if _backs(s, claims[0]))
    return _judgment(item_id, "yes", "every claim has a trace entry", "step", str(first.index),
                     claims[0])


def judge_responder(request: ReceivedRequest) -> Reply | HttpError:
    if [t["name"] for t in request.body.get("tools", [])] != ["record_judgments"]:
        return HttpError(status=400, message="scripted judge: unexpected request")
    req = read_judge_request(request)
    out = [judge_claims(i, req.report, req.steps) if kind == "claim_trace"
           else judge_requirement(i, text, req.steps) for i, kind, text in req.items]
    return reply(tool_use("record_judgments", {"judgments": out}))
