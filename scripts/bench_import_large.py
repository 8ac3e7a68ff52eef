"""Benchmark the importer's memory on one very large Claude Code transcript.

    .venv/bin/python scripts/bench_import_large.py [--mib 200] [--one-line] [--keep DIR]

Writes a synthetic trial whose `agent/claude-code.txt` is about --mib MiB of stream-json
(Bash calls with long outputs, Read calls whose results the harness repeats in
`tool_use_result`, Write calls, assistant text: the shapes of real transcripts, deterministic),
then runs `judge-runner import` on it in a child process and reads the child's peak resident
set size (`ru_maxrss` from `wait4`). Target: peak RSS <= 2x the transcript's size. Exits 1 when
the target is missed or the import fails.

With --one-line the transcript is one Bash call whose result is a single line of --mib MiB
(the worst case of a line-at-a-time parser: the whole line is in memory twice, as bytes and
text while it is decoded, as text and parsed JSON while it is parsed). Target: peak RSS <= 2.5x
the transcript's size (2x plus the interpreter's own 50-odd MiB, at 300 MiB).

The trial is written in pieces so that this process stays small: on Linux a child's `ru_maxrss`
starts from the high-water mark of the process that forked it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

JR = Path(sys.executable).parent / "judge-runner"
MIB = 1024 * 1024


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False) + "\n"


def _call(use_id: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": use_id, "name": tool, "input": args}],
        "usage": {"input_tokens": 1200, "output_tokens": 80}}}


def _result(use_id: str, output: str, structured: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": use_id, "content": output}]},
        "tool_use_result": structured}


def _row(turn: int) -> str:
    return f"{turn:07d} sensor=a{turn % 17} value={turn * 7919 % 100003} status=ok\n"


def _payload(turn: int, size: int) -> str:
    row = _row(turn)
    return (row * (size // len(row) + 1))[:size]


def write_transcript(out: TextIO, target_bytes: int) -> int:
    """Write turns until `target_bytes` are written; returns the number of turns."""
    written = out.write(_line({"type": "system", "subtype": "init", "cwd": "/root",
                               "skills": [], "model": "claude-bench",
                               "claude_code_version": "2.1.19", "tools": ["Bash", "Read"]}))
    turn = 0
    while written < target_bytes:
        use_id = f"toolu_{turn:08d}"
        kind = turn % 4
        payload = _payload(turn, 1500 + (turn * 37) % 4000)
        if kind == 0:
            events = [_call(use_id, "Bash", {"command": f"python3 analyze.py --part {turn}"}),
                      _result(use_id, payload, {"stdout": payload, "stderr": "",
                                                "interrupted": False})]
        elif kind == 1:
            path = f"/root/data/part-{turn % 50}.log"
            events = [_call(use_id, "Read", {"file_path": path}),
                      _result(use_id, payload, {"type": "text", "file": {
                          "filePath": path, "content": payload}})]
        elif kind == 2:
            path = f"/root/out/report-{turn % 50}.txt"
            events = [_call(use_id, "Write", {"file_path": path, "content": payload}),
                      _result(use_id, f"File created successfully at: {path}",
                              {"type": "create", "filePath": path, "content": payload})]
        else:
            events = [{"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": f"Part {turn} looks fine. " + payload[:600]}]}}]
        for event in events:
            written += out.write(_line(event))
        turn += 1
    out.write(_line({"type": "result", "subtype": "success", "is_error": False,
                     "num_turns": turn, "duration_ms": 1000, "result": "All parts analyzed."}))
    return turn


def write_one_line(out: TextIO, target_bytes: int) -> int:
    """One Bash call whose result is one line of about `target_bytes`; returns 1 (turn). The
    result is written in pieces, never held whole (see the module's note on `ru_maxrss`)."""
    out.write(_line({"type": "system", "subtype": "init", "cwd": "/root", "skills": [],
                     "model": "claude-bench", "claude_code_version": "2.1.19",
                     "tools": ["Bash"]}))
    out.write(_line(_call("toolu_00000000", "Bash", {"command": "python3 dump.py"})))
    marker = "PAYLOAD"
    head, tail = _line(_result("toolu_00000000", marker, {"stdout": "", "stderr": "",
                                                         "interrupted": False})).split(marker)
    out.write(head)
    row = _row(0).replace("\n", " ")
    piece = row * (MIB // len(row))
    written = 0
    while written < target_bytes:
        chunk = piece[:target_bytes - written]
        written += out.write(chunk)
    out.write(tail)
    out.write(_line({"type": "result", "subtype": "success", "is_error": False,
                     "num_turns": 1, "duration_ms": 1000, "result": "Dumped."}))
    return 1


def make_trial(root: Path, target_bytes: int, one_line: bool = False) -> tuple[Path, Path, int]:
    trial, tasks = root / "trials" / "large-run", root / "tasks" / "large-task"
    (trial / "agent").mkdir(parents=True)
    (trial / "verifier").mkdir()
    tasks.mkdir(parents=True)
    (tasks / "instruction.md").write_text("Analyze every part and write the reports.\n")
    (tasks / "task.toml").write_text('[metadata]\ncategory = "data-analysis"\n')
    with (trial / "agent" / "claude-code.txt").open("w", encoding="utf-8") as out:
        turns = (write_one_line if one_line else write_transcript)(out, target_bytes)
    (trial / "result.json").write_text(json.dumps({
        "task_name": "large-task", "trial_name": "large-task__bench",
        "verifier_result": {"rewards": {"reward": 1.0}}, "exception_info": None}))
    return trial, tasks.parent, turns


def peak_rss_of(command: list[str]) -> tuple[int, int, float]:
    """Run `command`; its exit status, peak RSS in bytes (Linux reports KiB) and wall time."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.stderr is not None:
        child.stderr.close()
    return child.returncode, usage.ru_maxrss * 1024, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description="importer peak memory on a large transcript")
    parser.add_argument("--mib", type=int, default=200, help="transcript size in MiB")
    parser.add_argument("--keep", type=Path, help="write the trial and dataset here and keep them")
    parser.add_argument("--one-line", action="store_true",
                        help="the transcript's bulk is one line (one tool result)")
    args = parser.parse_args()
    target = 2.5 if args.one_line else 2.0
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        trial, tasks, turns = make_trial(root, args.mib * MIB, args.one_line)
        size = (trial / "agent" / "claude-code.txt").stat().st_size
        code, peak, elapsed = peak_rss_of([str(JR), "import", str(trial.parent), "--tasks",
                                           str(tasks), "--out", str(root / "dataset")])
        report = json.loads((root / "dataset" / "import_report.json").read_text()) \
            if code == 0 else None
    ratio = peak / size
    console.print(f"transcript: {size / MIB:.1f} MiB, {turns:,} turns")
    console.print(f"judge-runner import: exit {code}, {elapsed:.1f} s, peak RSS "
                  f"{peak / MIB:.0f} MiB = {ratio:.2f}x the transcript")
    ok = code == 0 and report is not None and report["trials"][0]["status"] == "imported" \
        and ratio <= target
    console.print(f"target met (peak RSS <= {target:g}x transcript)" if ok
                  else "[red]target missed[/red]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
