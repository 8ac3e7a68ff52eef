"""The Protocol every judge implements (the verdict types live in `judge_runner.core`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from judge_runner.cases import CasePackage
from judge_runner.core import Verdict


@runtime_checkable
class Judge(Protocol):
    """A judge of one case at a time. Implementations must be safe to call from several threads."""

    @property
    def name(self) -> str:
        """The judge's name, as recorded in verdicts and the run store (read-only: judges are
        frozen dataclasses or classes with a fixed name)."""
        ...

    def config(self) -> dict[str, Any]:
        """Everything that changes verdicts (model, skill hash, knobs); identifies a run."""
        ...

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        """Judge `case`, write the per-case products into `out_dir`, return the verdict.

        Must not raise for case-level problems: return a Decision.ERROR verdict instead.
        """
        ...


def skill_dir_of(judge: Judge) -> Path | None:
    """The JudgeSkill folder a judge follows, where it follows one: a judge that does exposes it
    as `skill_dir` (the rules and agent judges); any other judge has none. Runs name the skill
    from this (path, name, version, hash) wherever they are described."""
    folder = getattr(judge, "skill_dir", None)
    return folder if isinstance(folder, Path) else None
