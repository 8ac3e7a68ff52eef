"""Builders for the bundled example trials (used by scripts/make_examples.py).

Writes Harbor-style trial folders: result.json, agent/claude-code.txt (Claude Code stream-json),
verifier/ctrf.json and verifier/test-stdout.txt. Everything is derived from fixed inputs: ids are
hashes of the trial name and a counter, timestamps are fixed, so regeneration is byte-identical.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOOLS = ["Task", "TaskOutput", "Bash", "Glob", "Grep", "ExitPlanMode", "Read", "Edit", "Write",
         "NotebookEdit", "WebFetch", "TodoWrite", "TaskStop", "AskUserQuestion", "Skill",
         "EnterPlanMode", "ToolSearch"]
MODELS = {
    "opus": "claude-opus-4-5-20251101",
    "sonnet": "claude-sonnet-4-5-20250929",
    "haiku": "claude-haiku-4-5-20251001",
}


def _hex(seed: str, n: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass
class Transcript:
    """A Claude Code stream-json transcript built event by event."""

    trial: str
    model: str
    skills: list[str]
    cwd: str = "/root"
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    turns: int = 0

    def __post_init__(self) -> None:
        self.session = _uuid(f"{self.trial}/session")
        self._emit({
            "type": "system", "subtype": "init", "cwd": self.cwd, "session_id": self.session,
            "tools": TOOLS, "mcp_servers": [], "model": self.model, "permissionMode": "default",
            "slash_commands": [*self.skills, "compact", "context", "cost", "init", "review"],
            "apiKeySource": "none", "claude_code_version": "2.1.19", "output_style": "default",
            "agents": ["Bash", "general-purpose", "Explore", "Plan"], "skills": self.skills,
            "plugins": []})

    def _next(self, what: str) -> str:
        self.counter += 1
        return f"{self.trial}/{what}/{self.counter}"

    def _emit(self, event: dict[str, Any]) -> None:
        event.setdefault("uuid", _uuid(self._next("uuid")))
        self.lines.append(json.dumps(event, ensure_ascii=False))

    def _assistant(self, block: dict[str, Any], msg_id: str) -> None:
        usage = {"input_tokens": 3, "cache_creation_input_tokens": 812 + 37 * self.counter,
                 "cache_read_input_tokens": 18000 + 450 * self.counter, "output_tokens": 1}
        self._emit({"type": "assistant", "message": {
            "model": self.model, "id": msg_id, "type": "message", "role": "assistant",
            "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage,
            "context_management": None}, "parent_tool_use_id": None, "session_id": self.session})

    def _user(self, content: list[dict[str, Any]], structured: Any = None) -> None:
        event: dict[str, Any] = {"type": "user", "message": {"role": "user", "content": content},
                                 "parent_tool_use_id": None, "session_id": self.session}
        if structured is not None:
            event["tool_use_result"] = structured
        self._emit(event)

    def say(self, text: str) -> str:
        msg_id = "msg_" + _hex(self._next("msg"), 24)
        self.turns += 1
        self._assistant({"type": "text", "text": text}, msg_id)
        return msg_id

    def call(self, name: str, args: dict[str, Any], msg_id: str | None = None) -> str:
        """Emit a tool_use block; return its id (answer it with `result`)."""
        use_id = "toolu_" + _hex(self._next("tool"), 24)
        if msg_id is None:
            msg_id = "msg_" + _hex(self._next("msg"), 24)
            self.turns += 1
        self._assistant({"type": "tool_use", "id": use_id, "name": name, "input": args}, msg_id)
        return use_id

    def result(self, use_id: str, output: str, is_error: bool = False,
               structured: Any = None) -> None:
        block: dict[str, Any] = {"tool_use_id": use_id, "type": "tool_result", "content": output}
        if is_error:
            block["is_error"] = True
        self._user([block], structured if structured is not None else
                   (f"Error: {output}" if is_error else output))

    # Tool helpers mirroring what Claude Code writes for each tool.
    def bash(self, command: str, stdout: str, exit_code: int = 0, description: str = "",
             msg_id: str | None = None) -> None:
        args = {"command": command, "description": description} if description else \
            {"command": command}
        use_id = self.call("Bash", args, msg_id)
        if exit_code:
            self.result(use_id, f"Exit code {exit_code}\n{stdout}", is_error=True)
        else:
            self.result(use_id, stdout, structured={"stdout": stdout, "stderr": "",
                                                    "interrupted": False, "isImage": False})

    def write(self, path: str, content: str, msg_id: str | None = None) -> None:
        use_id = self.call("Write", {"file_path": path, "content": content}, msg_id)
        self.result(use_id, f"File created successfully at: {path}",
                    structured={"type": "create", "filePath": path, "content": content,
                                "structuredPatch": [], "originalFile": None})

    def read(self, path: str, content: str, msg_id: str | None = None) -> None:
        use_id = self.call("Read", {"file_path": path}, msg_id)
        numbered = "\n".join(f"{i:>6}\u2192{line}" for i, line in
                             enumerate(content.split("\n"), start=1))
        self.result(use_id, numbered, structured={"type": "text", "file": {
            "filePath": path, "content": content, "numLines": content.count("\n") + 1,
            "startLine": 1, "totalLines": content.count("\n") + 1}})

    def edit(self, path: str, old: str, new: str, original: str,
             msg_id: str | None = None) -> str:
        use_id = self.call("Edit", {"file_path": path, "old_string": old, "new_string": new,
                                    "replace_all": False}, msg_id)
        self.result(use_id, f"The file {path} has been updated successfully.",
                    structured={"filePath": path, "oldString": old, "newString": new,
                                "originalFile": original, "structuredPatch": [],
                                "userModified": False, "replaceAll": False})
        return original.replace(old, new, 1)

    def multi_edit(self, path: str, edits: list[tuple[str, str]], original: str) -> str:
        use_id = self.call("MultiEdit", {"file_path": path, "edits": [
            {"old_string": o, "new_string": n} for o, n in edits]})
        content = original
        for old, new in edits:
            content = content.replace(old, new, 1)
        self.result(use_id, f"Applied {len(edits)} edits to {path}",
                    structured={"filePath": path, "edits": [
                        {"old_string": o, "new_string": n} for o, n in edits],
                        "originalFile": original, "structuredPatch": []})
        return content

    def todo(self, items: list[tuple[str, str]]) -> None:
        todos = [{"content": c, "status": s, "activeForm": c[:1].upper() + c[1:] + " (working)"}
                 for c, s in items]
        use_id = self.call("TodoWrite", {"todos": todos})
        self.result(use_id, "Todos have been modified successfully. Ensure that you continue to "
                            "use the todo list to track your progress. Please proceed with the "
                            "current tasks if applicable",
                    structured={"oldTodos": [], "newTodos": todos})

    def skill(self, name: str, body: str) -> None:
        use_id = self.call("Skill", {"skill": name})
        self.result(use_id, f"Launching skill: {name}",
                    structured={"success": True, "commandName": name})
        self._user([{"type": "text", "text": f"Base directory for this skill: "
                                             f"{self.cwd}/.claude/skills/{name}\n\n{body}"}])

    def raw(self, line: str) -> None:
        """A non-JSON line, as harness warnings appear inside real stream-json files."""
        self.lines.append(line)

    def notification(self, task_id: str, summary: str) -> None:
        self._emit({"type": "system", "subtype": "task_notification", "task_id": task_id,
                    "status": "completed",
                    "output_file": f"/tmp/claude/-root/tasks/{task_id}.output",
                    "summary": summary, "session_id": self.session})

    def finish(self, text: str, duration_ms: int) -> None:
        self.say(text)
        self._emit({"type": "result", "subtype": "success", "is_error": False,
                    "duration_ms": duration_ms, "duration_api_ms": duration_ms * 2 // 3,
                    "num_turns": self.turns, "result": text, "session_id": self.session,
                    "total_cost_usd": round(0.0021 * self.counter, 6), "usage": {
                        "input_tokens": 40 + self.counter, "output_tokens": 95 * self.turns}})

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Verifier:
    tests: list[tuple[str, bool, str]]  # name, passed, failure message

    def ctrf(self) -> str:
        passed = sum(1 for _, ok, _ in self.tests if ok)
        tests = []
        for i, (name, ok, message) in enumerate(self.tests):
            item: dict[str, Any] = {"name": f"test_outputs.py::{name}",
                                    "status": "passed" if ok else "failed",
                                    "duration": round(0.0011 + i * 0.0007, 4)}
            if not ok:
                item["message"] = message
                item["trace"] = f"tests/test_outputs.py:{20 + 9 * i}: in {name}\n    {message}"
            tests.append(item)
        doc = {"results": {"tool": {"name": "pytest", "version": "8.4.1"}, "summary": {
            "tests": len(self.tests), "passed": passed, "failed": len(self.tests) - passed,
            "skipped": 0, "pending": 0, "other": 0, "start": 1769390000.0,
            "stop": 1769390001.25}, "tests": tests}}
        return json.dumps(doc, indent=4) + "\n"

    def stdout(self) -> str:
        marks = "".join("." if ok else "F" for _, ok, _ in self.tests)
        lines = ["============================= test session starts ==============================",
                 "platform linux -- Python 3.12.3, pytest-8.4.1, pluggy-1.6.0",
                 "rootdir: /tests", f"collected {len(self.tests)} items", "",
                 f"../tests/test_outputs.py {marks:<40} [100%]", ""]
        failed = [(n, m) for n, ok, m in self.tests if not ok]
        if failed:
            lines.append(f"{'=' * 35} FAILURES {'=' * 35}")
            for name, message in failed:
                lines += [f"_{'_' * 20} {name} {'_' * 20}", f"E       {message}", ""]
            lines.append(f"{'=' * 27} short test summary info {'=' * 28}")
            lines += [f"FAILED ../tests/test_outputs.py::{n} - {m}" for n, m in failed]
        passed = len(self.tests) - len(failed)
        tail = f"{len(failed)} failed, {passed} passed" if failed else f"{passed} passed"
        lines.append(f"========================= {tail} in 1.25s =========================")
        return "\n".join(lines) + "\n"

    @property
    def reward(self) -> float:
        return 1.0 if all(ok for _, ok, _ in self.tests) else 0.0


def write_trial(root: Path, job: str, task: str, suffix: str, model_key: str,
                transcript: Transcript, verifier: Verifier, exception: str | None = None) -> None:
    trial_name = f"{task}__{suffix}"
    folder = root / job / trial_name
    (folder / "agent").mkdir(parents=True, exist_ok=True)
    (folder / "verifier").mkdir(parents=True, exist_ok=True)
    (folder / "agent" / "claude-code.txt").write_text(transcript.text(), encoding="utf-8")
    (folder / "verifier" / "ctrf.json").write_text(verifier.ctrf(), encoding="utf-8")
    (folder / "verifier" / "test-stdout.txt").write_text(verifier.stdout(), encoding="utf-8")
    model = MODELS[model_key]
    result = {
        "id": _uuid(f"{trial_name}/id"), "task_name": task, "trial_name": trial_name,
        "trial_uri": f"file:///jobs/{job}/{trial_name}", "task_id": {"path": f"tasks/{task}"},
        "source": None, "task_checksum": _hex(f"{task}/checksum", 64),
        "config": {"task": {"path": f"tasks/{task}"}, "trial_name": trial_name,
                   "trials_dir": f"jobs/{job}", "timeout_multiplier": 1.0,
                   "agent": {"name": "claude-code", "model_name": f"anthropic/{model}"},
                   "environment": {"type": "docker", "delete": True}},
        "agent_info": {"name": "claude-code", "version": "2.1.19",
                       "model_info": {"name": model, "provider": "anthropic"}},
        "agent_result": {"n_input_tokens": None, "n_cache_tokens": None, "n_output_tokens": None,
                         "cost_usd": None, "rollout_details": None, "metadata": None},
        "verifier_result": {"rewards": {"reward": verifier.reward}},
        "exception_info": None if exception is None else {
            "exception_type": exception, "exception_message": "Agent execution timed out after "
                                                              "900.0 seconds"},
        "started_at": "2026-01-26T09:00:00.000000", "finished_at": "2026-01-26T09:16:00.000000",
    }
    (folder / "result.json").write_text(json.dumps(result, indent=4) + "\n", encoding="utf-8")


def write_task(root: Path, name: str, category: str, instruction: str,
               skills: dict[str, str], test_code: str, difficulty: str = "medium") -> None:
    folder = root / name
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    (folder / "instruction.md").write_text(instruction, encoding="utf-8")
    (folder / "task.toml").write_text(
        f'version = "1.0"\n\n[metadata]\nauthor_name = "judge-runner examples"\n'
        f'difficulty = "{difficulty}"\ncategory = "{category}"\ntags = ["example"]\n\n'
        f'[verifier]\ntimeout_sec = 300.0\n\n[agent]\ntimeout_sec = 900.0\n', encoding="utf-8")
    for skill, text in skills.items():
        skill_dir = folder / "environment" / "skills" / skill
        skill_dir.mkdir(parents=True, exist_ok=True)
        (skill_dir / "SKILL.md").write_text(text, encoding="utf-8")
    (folder / "tests" / "test_outputs.py").write_text(test_code, encoding="utf-8")


def skill_body(skill_md: str) -> str:
    """The SKILL.md text without its front matter, as Claude Code injects it."""
    if skill_md.startswith("---\n"):
        end = skill_md.index("\n---\n", 4)
        return skill_md[end + 5:].lstrip("\n")
    return skill_md
