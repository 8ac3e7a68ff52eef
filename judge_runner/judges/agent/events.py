"""Judge events written into transcript.jsonl beside the recorded model calls.

The recording client appends one `model_call` line per request/response; the agent judge adds a
`judge_event` line when a session starts (system prompt hash, tools) and when it ends (decision,
error). Readers of model calls skip lines of other kinds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judge_runner.judges.products import TRANSCRIPT_FILE


def start(out_dir: Path, case_id: str, system_sha256: str, tools: list[str]) -> None:
    """Append the start event. The case's recording client owns the transcript file and has
    already replaced an earlier attempt's, so this appends rather than truncating."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _write(out_dir, "a", {"event": "start", "case_id": case_id,
                          "system_sha256": system_sha256, "tools": tools})


def end(out_dir: Path, decision: str, error: str | None) -> None:
    _write(out_dir, "a", {"event": "end", "decision": decision, "error": error})


def _write(out_dir: Path, mode: str, record: dict[str, Any]) -> None:
    line = json.dumps({"kind": "judge_event", **record}, sort_keys=True)
    with (out_dir / TRANSCRIPT_FILE).open(mode, encoding="utf-8") as out:
        out.write(line + "\n")
