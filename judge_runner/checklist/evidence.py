"""The execution log of one case as the checklist judge sees it: steps and artifact contents.

Only the trajectory and the artifacts of the case package are read (never labels or verifier
evidence, which live outside `cases/`). The view is immutable; the perturbation check makes a
changed copy instead of touching files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from judge_runner.cases import ArtifactProvenance, ArtifactRecord, CasePackage, Step
from judge_runner.checklist.models import EvidenceCite
from judge_runner.text import quote_found

MAX_ARTIFACT_BYTES = 200_000  # larger artifacts are listed but their text is not loaded


@dataclass(frozen=True)
class ArtifactView:
    path: str  # as the agent saw it
    text: str | None  # None: binary, too large, or content unknown
    note: str = ""


@dataclass(frozen=True)
class ExecutionLog:
    case_id: str
    task: str
    steps: tuple[str, ...]  # rendered text of each step, by step index
    final_message: str | None
    artifacts: tuple[ArtifactView, ...]

    def artifact(self, path: str) -> ArtifactView | None:
        """The artifact at `path`; a relative path matches a unique path ending in it."""
        exact = [a for a in self.artifacts if a.path == path]
        if exact:
            return exact[0]
        tail = "/" + path.lstrip("./")
        ends = [a for a in self.artifacts if a.path.endswith(tail)]
        return ends[0] if len(ends) == 1 else None

    def source_text(self, cite: EvidenceCite) -> str | None:
        """Text of the place a citation points at, or None when it does not exist."""
        if cite.kind == "step":
            if not cite.ref.isdigit() or int(cite.ref) >= len(self.steps):
                return None
            return self.steps[int(cite.ref)]
        if cite.kind == "report":
            return self.final_message
        artifact = self.artifact(cite.ref)
        return artifact.text if artifact is not None else None

    def verify(self, cite: EvidenceCite) -> EvidenceCite:
        """The citation with `verified` set: its source exists and holds the quote (whitespace
        runs compared as one space). An empty quote never verifies."""
        text = self.source_text(cite)
        ok = text is not None and quote_found(cite.quote, text)
        return cite.model_copy(update={"verified": ok})

    def perturbed(self, cite: EvidenceCite) -> tuple[ExecutionLog, str, str] | None:
        """A copy in which the decisive number of `cite` reads a plausible wrong value, with the
        old and new text; None when the cited quote holds no number or cannot be located."""
        old = decisive_number(cite.quote)
        text = self.source_text(cite)
        if old is None or text is None:
            return None
        new = plausible_wrong(old)
        at = text.find(cite.quote)
        if at >= 0:  # change the value inside the cited span, not an earlier equal number
            span = cite.quote
            cut = span.rfind(old)
            changed = text[:at] + span[:cut] + new + span[cut + len(old):] + text[at + len(span):]
        elif old in text:
            changed = text.replace(old, new, 1)
        else:
            return None
        return self._with_source(cite, changed), old, new

    def _with_source(self, cite: EvidenceCite, text: str) -> ExecutionLog:
        if cite.kind == "step":
            steps = list(self.steps)
            steps[int(cite.ref)] = text
            return replace(self, steps=tuple(steps))
        if cite.kind == "report":
            return replace(self, final_message=text)
        target = self.artifact(cite.ref)
        artifacts = tuple(replace(a, text=text) if a is target else a for a in self.artifacts)
        return replace(self, artifacts=artifacts)


def render_step(step: Step) -> str:
    parts = [f"{step.kind.value}"]
    if step.tool:
        parts.append(f"tool={step.tool}")
    if step.skill:
        parts.append(f"skill={step.skill}")
    if step.is_error:
        parts.append("ERROR")
    if step.exit_code is not None:
        parts.append(f"exit={step.exit_code}")
    lines = [" ".join(parts)]
    if step.text:
        lines.append(step.text)
    if step.arguments:
        lines.append("arguments: " + json.dumps(step.arguments, sort_keys=True, ensure_ascii=False))
    if step.output:
        lines.append("output: " + step.output)
    if step.omitted_chars:
        lines.append(f"[{step.omitted_chars} characters of this step were cut when imported]")
    return "\n".join(lines)


def load_log(case: CasePackage) -> ExecutionLog:
    """Build the view of a case. Artifact files that are missing, binary or too large keep a
    note instead of text, so a judge abstains on them rather than guessing."""
    trajectory = case.trajectory
    meta = case.meta
    artifacts: list[ArtifactView] = []
    for record in sorted(meta.artifacts, key=lambda r: r.path):
        artifacts.append(_artifact_view(case, record))
    steps = [""] * (max((s.index for s in trajectory.steps), default=-1) + 1)
    for step in trajectory.steps:
        steps[step.index] = render_step(step)
    return ExecutionLog(case_id=meta.id, task=meta.task, steps=tuple(steps),
                        final_message=trajectory.final_message, artifacts=tuple(artifacts))


def _artifact_view(case: CasePackage, record: ArtifactRecord) -> ArtifactView:
    path, provenance = record.path, record.provenance
    if record.stored_as is None or provenance is ArtifactProvenance.UNKNOWN:
        return ArtifactView(path, None, "written by the agent; content not recovered")
    # Only regular files inside artifacts/: a stored_as that climbs out or goes through a link
    # could name the labels or verifier evidence.
    file = case.artifact_file(record)
    if file is None:
        return ArtifactView(path, None, "listed but missing from the case package")
    if file.stat().st_size > MAX_ARTIFACT_BYTES:
        return ArtifactView(path, None, f"larger than {MAX_ARTIFACT_BYTES} bytes; not shown")
    try:
        return ArtifactView(path, file.read_text(encoding="utf-8"), provenance.value)
    except UnicodeDecodeError:
        return ArtifactView(path, None, "binary file; not shown")


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")


def decisive_number(quote: str) -> str | None:
    """The value a perturbation replaces: the last number in the cited quote (results tend to
    follow their labels, e.g. "mean_temp": 21.5), or None when the quote holds no number."""
    numbers = _NUMBER.findall(quote)
    return numbers[-1] if numbers else None


def plausible_wrong(value: str) -> str:
    """A different number of the same shape: same sign and decimals, about 13 % off."""
    decimals = len(value.split(".")[1]) if "." in value else 0
    number = float(value)
    wrong = number * 1.13 if number != 0 else 1.0
    text = f"{wrong:.{decimals}f}"
    if text == value:  # rounding ate the change (tiny numbers): step the last digit instead
        text = f"{number + 10 ** -decimals:.{decimals}f}"
    return text
