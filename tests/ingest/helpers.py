"""Small builders for hand-made trial folders used by the ingest tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def init_event(skills: list[str], cwd: str = "/root") -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "cwd": cwd, "skills": skills,
            "model": "claude-test", "claude_code_version": "2.1.19", "tools": ["Bash", "Write"]}


def tool_use(use_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": use_id, "name": name, "input": args}],
        "usage": {"input_tokens": 1}}}


def tool_result(use_id: str, output: str, is_error: bool = False,
                structured: Any = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": output}
    if is_error:
        block["is_error"] = True
    event: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": [block]}}
    if structured is not None:
        event["tool_use_result"] = structured
    return event


def text(message: str) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": message}]}}


def result(message: str) -> dict[str, Any]:
    return {"type": "result", "subtype": "success", "is_error": False, "num_turns": 3,
            "duration_ms": 1000, "result": message}


def stream(*events: dict[str, Any] | str) -> str:
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events)


def make_trial(root: Path, name: str, transcript: str | bytes | None, task: str = "demo-task",
               reward: float | None = 1.0, with_result: bool = True) -> Path:
    folder = root / name
    (folder / "agent").mkdir(parents=True)
    (folder / "verifier").mkdir()
    (folder / "verifier" / "test-stdout.txt").write_text(f"verifier says {name}: 1 passed\n")
    if isinstance(transcript, bytes):
        (folder / "agent" / "claude-code.txt").write_bytes(transcript)
    elif transcript is not None:
        (folder / "agent" / "claude-code.txt").write_text(transcript)
    if with_result:
        doc: dict[str, Any] = {"task_name": task, "trial_name": f"{task}__{name}",
                               "verifier_result": {"rewards": {"reward": reward}},
                               "exception_info": None,
                               "config": {"agent": {"name": "claude-code",
                                                    "model_name": "anthropic/claude-test"}}}
        (folder / "result.json").write_text(json.dumps(doc))
    return folder


def make_task(root: Path, name: str = "demo-task", skills: tuple[str, ...] = ("demo-skill",),
              category: str = "security") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "instruction.md").write_text("Write /root/out.txt containing the answer.\n")
    (folder / "task.toml").write_text(f'[metadata]\ncategory = "{category}"\n')
    for skill in skills:
        skill_dir = folder / "environment" / "skills" / skill
        skill_dir.mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(f"---\nname: {skill}\n---\n\n# {skill}\nDo it well.\n")
    return folder


def writing_run(files: dict[str, str], cwd: str = "/root") -> str:
    """A run without skills that writes each file (path as the agent gave it -> content) with
    one Write call, ids a, b, c..., then ends with "done"."""
    events: list[dict[str, Any]] = [init_event([], cwd=cwd)]
    for n, (path, content) in enumerate(files.items()):
        use_id = chr(ord("a") + n)
        events += [tool_use(use_id, "Write", {"file_path": path, "content": content}),
                   tool_result(use_id, "ok")]
    return stream(*events, result("done"))


def good_run() -> str:
    """A short successful run: one Write of /root/out.txt, then the final message."""
    return stream(init_event(["demo-skill"]),
                  tool_use("w", "Write", {"file_path": "/root/out.txt", "content": "42\n"}),
                  tool_result("w", "File created"), text("Wrote 42."), result("Wrote 42."))
