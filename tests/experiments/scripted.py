"""A plan over the bundled example trials whose model rows talk to the scripted servers of
`tests.fakeapi` on both wires, and the deterministic answers those servers give."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from judge_runner.checklist.score import TOOL_NAME
from judge_runner.runs.store import STORE_FILE
from tests.checklist import scripted as checklist_scripted
from tests.conftest import EXAMPLES, REPO
from tests.fakeapi import ReceivedRequest, Reply, Slow, reply, tool_use
from tests.fakeapi.server import Scripted

MESSAGES_MODEL = "scripted-sonnet"
CHAT_MODEL = "openai:scripted-gpt"
PRICES = """
[models."scripted-sonnet"]
input = 3000.0
cache_write = 3750.0
cache_read = 300.0
output = 15000.0

[models."scripted-gpt"]
input = 2000.0
cache_write = 2000.0
cache_read = 2000.0
output = 8000.0
"""
_CASE = re.compile(r"# Case ([A-Za-z0-9_.-]+)")


def header(name: str = "scripted", concurrency: int = 3, budget: float | None = None) -> str:
    lines = [f'name = "{name}"', f'trials = ["{EXAMPLES / "trials"}"]',
             f'tasks = ["{EXAMPLES / "tasks"}"]', f"concurrency = {concurrency}"]
    if budget is not None:
        lines.append(f"budget_usd = {budget}")
    return "\n".join(lines) + "\n\n[limits.openai]\nconcurrency = 2\n\n"


RULES_ROWS = f"""
[[rows]]
name = "rules-v1"
title = "Rules v1"
judge = "rules"
skill = "{REPO / 'judgeskills' / 'v1'}"
version = "v1"

[[rows]]
name = "rules-v2"
title = "Rules v2"
judge = "rules"
skill = "{REPO / 'judgeskills' / 'v2'}"
version = "v2"
"""

MESSAGES_ROW = f"""
[[rows]]
name = "direct-messages"
title = "Direct (scripted Messages)"
judge = "direct"
model = "{MESSAGES_MODEL}"
base_url = "${{FAKE_MESSAGES_URL}}"
options = {{ max_output_tokens = 300 }}
"""

MODEL_ROWS = MESSAGES_ROW + f"""
[[rows]]
name = "direct-chat"
title = "Direct (scripted Chat)"
judge = "direct"
model = "{CHAT_MODEL}"
base_url = "${{FAKE_CHAT_URL}}"
options = {{ max_output_tokens = 300 }}

[[rows]]
name = "majority"
title = "Majority (both wires)"
judge = "multi"
models = ["{MESSAGES_MODEL}", "{CHAT_MODEL}", "{MESSAGES_MODEL}"]
base_url = "${{FAKE_MESSAGES_URL}}"
options = {{ max_output_tokens = 300, base_urls = {{ openai = "${{FAKE_CHAT_URL}}" }} }}
"""

def checklist_row(checklists: Path) -> str:
    """The checklist judge with the checklists of `checklists`, its item judge on Messages."""
    return f"""
[[rows]]
name = "checklist"
title = "Checklist (scripted item judge)"
judge = "checklist"
model = "{MESSAGES_MODEL}"
base_url = "${{FAKE_MESSAGES_URL}}"
options = {{ checklists = "{checklists}" }}
"""


TAIL = """
[[comparisons]]
a = "rules-v1"
b = "rules-v2"

[[comparisons]]
a = "direct-messages"
b = "direct-chat"

[selection]
n_max = 3
repeats = 4
seed = 0
"""

# The same rows as `eval` flags (the row's options, as `experiment run` passes them).
EVAL_FLAGS = {
    "rules-v1": ["--judge", "rules", "--skill", str(REPO / "judgeskills" / "v1")],
    "rules-v2": ["--judge", "rules", "--skill", str(REPO / "judgeskills" / "v2")],
    "direct-messages": ["--judge", "direct", "--model", MESSAGES_MODEL, "--base-url",
                        "{messages}", "-o", "max_output_tokens=300"],
    "direct-chat": ["--judge", "direct", "--model", CHAT_MODEL, "--base-url", "{chat}",
                    "-o", "max_output_tokens=300"],
    "majority": ["--judge", "multi", "--models", f"{MESSAGES_MODEL},{CHAT_MODEL},{MESSAGES_MODEL}",
                 "--base-url", "{messages}", "-o", "max_output_tokens=300", "-o",
                 'base_urls={"openai": "{chat}"}'],
}


def decision(case_id: str, model: str) -> str:
    """A fixed answer per (case, model), unrelated to the labels."""
    return "pass" if hashlib.sha256(f"{case_id}/{model}".encode()).digest()[0] % 3 else "fail"


def answer(request: ReceivedRequest, delay_s: float = 0.0) -> Scripted:
    """The verdict `decision` gives, or the checklist's scripted item judgments (that judge's
    request asks for `record_judgments`)."""
    if [t.get("name") for t in request.body.get("tools", [])] == [TOOL_NAME]:
        return checklist_scripted.judge_responder(request)
    found = _CASE.search(request.text)
    case_id = found.group(1) if found else "?"
    model = str(request.body.get("model"))
    made: Reply = reply(tool_use("submit_verdict", {
        "decision": decision(case_id, model),
        "rationale": f"scripted answer for {case_id}"}))
    return Slow(delay_s, then=made) if delay_s else made


def cases_asked(requests: list[ReceivedRequest]) -> list[tuple[str, str]]:
    """(model, case id) of every request a server received."""
    out = []
    for r in requests:
        found = _CASE.search(r.text)
        out.append((str(r.body.get("model")), found.group(1) if found else "?"))
    return out


def env(tmp: Path, messages: str, chat: str) -> dict[str, str]:
    prices = tmp / "prices.toml"
    prices.write_text(PRICES)
    return {**os.environ, "FAKE_MESSAGES_URL": messages, "FAKE_CHAT_URL": chat,
            "JUDGE_RUNNER_PRICES": str(prices), "COLUMNS": "250"}


def command(args: list[str]) -> list[str]:
    """`judge-runner ARGS` as a process of this interpreter."""
    return [sys.executable, "-m", "judge_runner.cli", *args]


def cli(args: list[str], cwd: Path, environ: dict[str, str],
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(args), cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=timeout)


def stored(output: Path) -> int:
    """Verdicts committed in every run store under `output`."""
    total = 0
    for path in output.glob(f"*/{STORE_FILE}"):
        db = sqlite3.connect(path)
        try:
            total += int(db.execute("SELECT count(*) FROM verdicts").fetchone()[0])
        except sqlite3.OperationalError:
            pass
        finally:
            db.close()
    return total


def run_json(output: Path, plan: str = "scripted") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((output / f"experiment-{plan}" / "run.json").read_text())
    return data
