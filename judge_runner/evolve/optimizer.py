"""Optimizers: given the incumbent skill and one strategy brief, propose a revised skill.

Every optimizer implements the same contract (`Optimizer.propose`) and writes a complete
candidate directory (a copy of the parent with its changes applied). An optimizer that cannot
produce a candidate raises `ProposalError`; the loop records the candidate as failed and goes on.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from judge_runner.core import Usage
from judge_runner.evolve.bundles import JudgedCase
from judge_runner.evolve.state import Strategy
from judge_runner.models import (
    ModelClient,
    ModelError,
    ModelRequest,
    ModelResponse,
    RecordingClient,
    ReplayClient,
    ReplayError,
    ReplayMissError,
    transcript_usage,
)
from judge_runner.templates import environment
from judge_runner.untrusted import Fence

_SAFE_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\.md$")


class ProposalError(RuntimeError):
    """No candidate could be had (e.g. the optimizer's model call failed): recorded as failed."""


class UnusableAnswer(ProposalError):
    """The optimizer answered, but its answer is not a usable candidate (prose instead of the
    tool call, an empty SKILL.md, unsafe reference names): recorded as an invalid candidate,
    like a rewrite that fails validation."""


@dataclass(frozen=True)
class ProposalRequest:
    parent_dir: Path
    strategy: Strategy
    strategy_brief: str
    shared_brief: str
    out_dir: Path  # must not exist yet; the optimizer creates it
    seed: int
    judged: list[JudgedCase] = field(default_factory=list)  # for optimizers that use verdicts


@dataclass(frozen=True)
class Proposal:
    skill_dir: Path
    rationale: str
    usage: Usage = field(default_factory=Usage)


class Optimizer(Protocol):
    name: str

    def propose(self, request: ProposalRequest) -> Proposal: ...

    def spent(self) -> Usage:
        """Everything this optimizer has paid for so far, from a durable record."""
        ...


def skill_files(skill_dir: Path) -> dict[str, str]:
    """All text files of a skill by relative path, in stable order."""
    return {
        p.relative_to(skill_dir).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(skill_dir.rglob("*"))
        if p.is_file()
    }


PROPOSE_TOOL: dict[str, Any] = {
    "name": "propose_skill",
    "description": "Submit the revised JudgeSkill.",
    "input_schema": {
        "type": "object",
        "properties": {
            "skill_md": {"type": "string", "description": "The complete new SKILL.md."},
            "references": {
                "type": "object",
                "description": "Reference files to replace or add, by file name (name.md).",
                "additionalProperties": {"type": "string"},
            },
            "rationale": {"type": "string", "description": "What changed and why."},
        },
        "required": ["skill_md", "rationale"],
    },
}


class ModelOptimizer:
    """Asks a model (through any ModelClient) to rewrite SKILL.md and its references.

    Every call is recorded in `transcript` (a transcript.jsonl). A request already answered
    there — the same skill and briefs, e.g. after the loop was killed before saving the
    candidate — is answered from the record instead of being paid again; `spent()` sums the
    record, so each call counts once.
    """

    name = "model"

    def __init__(
        self, client: ModelClient, model: str, transcript: Path, max_tokens: int = 16_000
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.transcript = transcript
        transcript.parent.mkdir(parents=True, exist_ok=True)
        self.client = RecordingClient(client, transcript, append=True)

    def spent(self) -> Usage:
        return transcript_usage(self.transcript) if self.transcript.is_file() else Usage()

    def _complete(self, request: ModelRequest) -> ModelResponse:
        if self.transcript.is_file():
            try:
                return ReplayClient(self.transcript.parent).complete(request)
            except (ReplayError, ReplayMissError):
                pass
        return self.client.complete(request)

    def propose(self, request: ProposalRequest) -> Proposal:
        files = skill_files(request.parent_dir)
        templates = environment("judge_runner.evolve")
        system = templates.get_template("optimizer_system.md.j2").render()
        user = templates.get_template("optimizer_request.md.j2").render(
            files=files,
            strategy=request.strategy.value,
            strategy_brief=request.strategy_brief,
            shared_brief=request.shared_brief,
            fence=Fence.of(request.strategy_brief, request.shared_brief),
        )
        model_request = ModelRequest(
            model=self.model,
            system=[{"type": "text", "text": system}],
            messages=[{"role": "user", "content": user}],
            tools=[PROPOSE_TOOL],
            max_tokens=self.max_tokens,
        )
        try:
            response = self._complete(model_request)
        except ModelError as exc:
            raise ProposalError(f"optimizer model call failed: {exc}") from exc
        call = next(
            (
                b
                for b in response.content
                if b.get("type") == "tool_use" and b.get("name") == PROPOSE_TOOL["name"]
            ),
            None,
        )
        if call is None:
            raise UnusableAnswer("optimizer answered without calling propose_skill")
        proposal_input = call.get("input") or {}
        skill_md = proposal_input.get("skill_md")
        references = proposal_input.get("references") or {}
        if not isinstance(skill_md, str) or not skill_md.strip():
            raise UnusableAnswer("propose_skill.skill_md is missing or empty")
        if not isinstance(references, dict) or not all(
            isinstance(v, str) for v in references.values()
        ):
            raise UnusableAnswer("propose_skill.references must map file names to text")
        bad = sorted(name for name in references if not _SAFE_REF.match(str(name)))
        if bad:
            raise UnusableAnswer(f"propose_skill.references has unsafe file names: {bad}")
        write_candidate(
            request.parent_dir,
            request.out_dir,
            {"SKILL.md": skill_md}
            | {f"references/{name}": text for name, text in references.items()},
        )
        return Proposal(
            skill_dir=request.out_dir,
            rationale=str(proposal_input.get("rationale", "")),
            usage=response.usage,
        )


def write_candidate(parent_dir: Path, out_dir: Path, changes: dict[str, str]) -> None:
    """Copy the parent skill to `out_dir` and apply `changes` (relative path → new text)."""
    if out_dir.exists():
        shutil.rmtree(out_dir)  # a half-written candidate from an interrupted attempt
    shutil.copytree(parent_dir, out_dir)
    for rel, text in sorted(changes.items()):
        target = (out_dir / rel).resolve()
        if not target.is_relative_to(out_dir.resolve()):
            raise ProposalError(f"candidate file {rel!r} would be written outside the skill")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
