"""The view of one case: its package (instruction, steps, artifacts, skills), the judge's products,
and every citation resolved to the element of the page it points at.

Resolution, by evidence kind:

- `step` (ref = step index): the step; a quote is marked in the step's output, text, command or
  arguments, whichever holds it.
- `artifact` (ref = stored path or agent path): the artifact; a quote marks its lines.
- `instruction`, `skill` (ref = skill name): that section; a quote is marked in its source.
- `report` (the run's final report): the final message; a quote is marked in it.
- `tool_call` (ref = the agent judge's own call id): that call's recorded output, the quote
  marked in it; when the quoted text also occurs in a trajectory step or an artifact, a second
  link goes there.

A citation that names nothing on the page (a step index past the end, a call missing from the
transcript) is shown as unresolved text, never as a link to nowhere. A quote that the judge's
machine check did not verify is flagged `unverified`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from judge_runner.cases import ArtifactRecord, CaseMeta, CasePackage, Step, StepKind, Trajectory
from judge_runner.core import EvidenceRef, Inspection, RefKind
from judge_runner.judges import (
    PLAN_FILE,
    TRANSCRIPT_FILE,
    json_unescaped,
    read_log,
    shown_folder,
)
from judge_runner.runs import CaseRecord
from judge_runner.text import sha256_text
from judge_runner.view.markdown import render_markdown
from judge_runner.view.session import JudgeCall, judge_calls
from judge_runner.view.spans import Span, has_cut, locate, marked

FOLD_CHARS = 1_500  # longer texts are folded (expandable) on the page
FOLD_LINES = 24
MAX_ARTIFACT_CHARS = 400_000  # the most of one artifact a page shows
MIN_ECHO_CHARS = 12  # shorter quotes are too common to point at one step or line
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_ARTIFACT_PATH = re.compile(r"/case/artifacts/([^\s'\"|;&<>()]+)")


def safe_token(raw: str) -> str:
    """`raw` as an id or file-name part: safe characters kept, anything else replaced and
    disambiguated by a short hash, so two different raw names never share a token."""
    clean = _UNSAFE.sub("_", raw)
    if clean != raw or not clean:
        clean += "-" + sha256_text(raw)[:8]
    return clean


def anchor(prefix: str, raw: str) -> str:
    """An element id for `raw` (a tool-call id, a skill name, an inspection id)."""
    return f"{prefix}-{safe_token(raw)}"


@dataclass
class Block:
    """A text shown on the page. Markdown text is rendered unless a quote is marked in it; then
    its source is shown, so the marked characters are the cited ones."""

    text: str
    markdown: bool = False
    spans: list[Span] = field(default_factory=list)

    @property
    def folded(self) -> bool:
        return len(self.text) > FOLD_CHARS or self.text.count("\n") > FOLD_LINES

    @property
    def cut(self) -> bool:
        return has_cut(self.text)

    @property
    def lines(self) -> int:
        return self.text.count("\n") + 1

    def html(self) -> Markup:
        if self.markdown and not self.spans:
            return render_markdown(self.text)
        return marked(self.text, self.spans)

    @property
    def is_markdown(self) -> bool:
        return self.markdown and not self.spans


@dataclass(frozen=True)
class Target:
    """Where a citation link goes; `href` None when it resolves to nothing on the page."""

    href: str | None
    label: str
    note: str = ""


@dataclass
class EvidenceView:
    ref: EvidenceRef
    target: Target
    also: list[Target] = field(default_factory=list)

    @property
    def status(self) -> str:
        """verified / unverified (the judge's machine check failed) / unchecked (not checked)."""
        if self.ref.verified is None:
            return "unchecked"
        return "verified" if self.ref.verified else "unverified"


@dataclass
class InspectionView:
    inspection: Inspection
    anchor: str
    evidence: list[EvidenceView]


@dataclass
class StepView:
    step: Step
    anchor: str
    text: Block | None
    command: Block | None
    arguments: Block | None
    output: Block | None
    touched: list[Target]

    @property
    def blocks(self) -> list[Block]:
        return [b for b in (self.output, self.text, self.command, self.arguments) if b]

    @property
    def title(self) -> str:
        s = self.step
        if s.kind is StepKind.TOOL_CALL:
            return s.tool or "tool call"
        if s.kind is StepKind.SKILL_USE:
            return f"skill {s.skill or ''}".strip()
        return s.kind.value.replace("_", " ")


@dataclass
class ArtifactView:
    record: ArtifactRecord
    anchor: str
    lines: list[str] | None  # None when the content is not shown
    note: str = ""
    quoted: set[int] = field(default_factory=set)  # 1-based line numbers inside a quote
    producers: list[Target] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines or [])

    def line_id(self, number: int) -> str:
        return f"{self.anchor}-L{number}"


@dataclass
class SkillView:
    name: str
    anchor: str
    body: Block | None
    note: str = ""


@dataclass
class CallView:
    call: JudgeCall
    anchor: str
    command: Block
    output: Block | None


@dataclass
class CaseView:
    record: CaseRecord
    meta: CaseMeta | None
    trajectory: Trajectory | None
    instruction: Block | None
    steps: list[StepView]
    final_message: Block | None
    artifacts: list[ArtifactView]
    skills: list[SkillView]
    calls: list[CallView]
    plan: Block | None
    inspections: list[InspectionView]
    citations: list[Target]  # the verdict's, one per cited inspection id
    problems: list[str]

    @property
    def n_unverified(self) -> int:
        return sum(1 for i in self.inspections for e in i.evidence if e.status == "unverified")


def build_case_view(record: CaseRecord, package: CasePackage | None, products: Path) -> CaseView:
    """Read everything shown on the page of `record`; an unreadable part becomes a problem line
    on the page, never an exception."""
    problems: list[str] = []
    meta, trajectory, instruction = _read_package(package, problems)
    steps = [_step_view(s) for s in trajectory.steps] if trajectory else []
    final = Block(trajectory.final_message) if trajectory and trajectory.final_message else None
    artifacts = _artifact_views(package, meta, problems) if package and meta else []
    skills = _skill_views(package, meta) if package and meta else []
    # The calls the plan and log cite: of the shown session, when sessions voted.
    calls_raw, call_problems = judge_calls(
        shown_folder(products, record.verdict) / TRANSCRIPT_FILE)
    problems += call_problems
    calls = [CallView(c, anchor("call", c.id), Block(c.shown_input),
                      Block(c.output) if c.output is not None else None) for c in calls_raw]
    plan = None
    if (products / PLAN_FILE).is_file():
        plan = Block(_read_text(products / PLAN_FILE, problems), markdown=True)
    try:
        log = read_log(products)
    except (OSError, ValueError) as exc:
        problems.append(f"inspection log unreadable: {exc}")
        log = []
    resolver = _Resolver(steps, artifacts, skills, calls, instruction, final)
    _link_producers(steps, artifacts)
    inspections = [InspectionView(i, anchor("insp", i.id),
                                  [resolver.resolve(ref) for ref in i.evidence]) for i in log]
    by_id = {i.inspection.id: i.anchor for i in inspections}
    citations = [Target(f"#{by_id[c]}" if c in by_id else None, c,
                        "" if c in by_id else "not in the inspection log")
                 for c in record.verdict.citations]
    return CaseView(record=record, meta=meta, trajectory=trajectory, instruction=instruction,
                    steps=steps, final_message=final, artifacts=artifacts, skills=skills,
                    calls=calls, plan=plan, inspections=inspections, citations=citations,
                    problems=problems)


def _read_text(path: Path, problems: list[str]) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path.name} unreadable: {exc}")
        return ""


def _read_package(package: CasePackage | None, problems: list[str]
                  ) -> tuple[CaseMeta | None, Trajectory | None, Block | None]:
    if package is None:
        problems.append("the case package was not found (pass --dataset DIR)")
        return None, None, None
    meta = trajectory = instruction = None
    try:
        meta = package.meta
    except (OSError, ValueError) as exc:
        problems.append(f"case.json unreadable: {exc}")
    try:
        trajectory = package.trajectory
    except (OSError, ValueError) as exc:
        problems.append(f"trajectory.json unreadable: {exc}")
    try:
        instruction = Block(package.instruction, markdown=True)
    except (OSError, ValueError) as exc:
        problems.append(f"instruction.md unreadable: {exc}")
    return meta, trajectory, instruction


def _step_view(step: Step) -> StepView:
    args = dict(step.arguments or {})
    command = args.pop("command", None)
    return StepView(
        step=step, anchor=f"step-{step.index}",
        text=Block(step.text, markdown=step.kind in (StepKind.ASSISTANT_MESSAGE,
                                                     StepKind.SKILL_USE)) if step.text else None,
        command=Block(command) if isinstance(command, str) else None,
        arguments=Block(json.dumps(args, indent=1, ensure_ascii=False)) if args else None,
        output=Block(step.output) if step.output is not None else None,
        touched=[],
    )


def _artifact_views(package: CasePackage, meta: CaseMeta, problems: list[str]
                    ) -> list[ArtifactView]:
    views = []
    for number, record in enumerate(meta.artifacts):
        view = ArtifactView(record=record, anchor=f"art-{number}", lines=None)
        path = package.artifact_file(record)
        if record.stored_as is None:
            view.note = "no stored copy"
        elif path is None:
            view.note = "stored copy missing or outside artifacts/ (not read)"
        else:
            try:
                data = path.read_bytes()
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                view.note = f"binary file ({len(data):,} bytes), not shown"
            except OSError as exc:
                problems.append(f"artifact {record.stored_as} unreadable: {exc}")
                view.note = "unreadable"
            else:
                if len(text) > MAX_ARTIFACT_CHARS:
                    view.note = (f"the first {MAX_ARTIFACT_CHARS:,} of {len(text):,} characters "
                                 "are shown")
                    text = text[:MAX_ARTIFACT_CHARS]
                view.lines = text.split("\n")
        views.append(view)
    return views


def _skill_views(package: CasePackage, meta: CaseMeta) -> list[SkillView]:
    root = package.skills_dir
    views = []
    for name in meta.skills:
        view = SkillView(name=name, anchor=anchor("skill", name), body=None)
        path = root / name / "SKILL.md"
        inside = (not path.is_symlink() and path.is_file()
                  and path.resolve().is_relative_to(root.resolve()))
        if not inside:
            view.note = "SKILL.md not in the package"
        else:
            try:
                view.body = Block(path.read_text(encoding="utf-8"), markdown=True)
            except (OSError, UnicodeDecodeError) as exc:
                view.note = f"SKILL.md unreadable: {exc}"
        views.append(view)
    return views


def _link_producers(steps: list[StepView], artifacts: list[ArtifactView]) -> None:
    """Artifacts link to the steps that produced them, and steps to the artifacts they touched."""
    step_ids = {s.step.index for s in steps}
    by_path = {a.record.path: a for a in artifacts}
    for art in artifacts:
        art.producers = [Target(f"#step-{i}" if i in step_ids else None, f"step {i}")
                         for i in art.record.steps]
    for view in steps:
        for path in view.step.files_touched:
            touched = by_path.get(path)
            if touched is not None:
                view.touched.append(Target(f"#{touched.anchor}", path))


class _Resolver:
    """Turns evidence refs into link targets, marking each located quote in its source."""

    def __init__(self, steps: list[StepView], artifacts: list[ArtifactView],
                 skills: list[SkillView], calls: list[CallView], instruction: Block | None,
                 final_message: Block | None) -> None:
        self.steps = {s.step.index: s for s in steps}
        self.artifacts = artifacts
        self.skills = {s.name: s for s in skills}
        self.calls = {c.call.id: c for c in calls}
        self.instruction = instruction
        self.final_message = final_message
        self._marks = 0

    def resolve(self, ref: EvidenceRef) -> EvidenceView:
        kind = ref.kind
        if kind is RefKind.STEP:
            return EvidenceView(ref, self._step(ref))
        if kind is RefKind.ARTIFACT:
            return EvidenceView(ref, self._artifact(ref.ref, ref.quote))
        if kind is RefKind.INSTRUCTION:
            return EvidenceView(ref, self._in_block(self.instruction, "instruction", "instruction",
                                                    ref.quote))
        if kind is RefKind.SKILL:
            skill = self.skills.get(ref.ref)
            if skill is None:
                return EvidenceView(ref, Target(None, f"skill {ref.ref}",
                                                "not a skill of this case"))
            return EvidenceView(ref, self._in_block(skill.body, skill.anchor, f"skill {ref.ref}",
                                                    ref.quote))
        if kind is RefKind.TOOL_CALL:
            return self._tool_call(ref)
        if kind is RefKind.REPORT:
            return EvidenceView(ref, self._in_block(self.final_message, "final-message",
                                                    "final report", ref.quote))
        return EvidenceView(ref, Target(None, f"{kind} {ref.ref}", "unknown evidence kind"))

    def _mark(self, block: Block, quote: str, classes: str = "quote") -> str | None:
        for candidate in dict.fromkeys((quote, json_unescaped(quote))):
            found = locate(candidate, block.text)
            if found is not None:
                self._marks += 1
                mark_id = f"q-{self._marks}"
                block.spans.append(Span(found[0], found[1], mark_id, classes))
                return mark_id
        return None

    def _in_block(self, block: Block | None, element: str, label: str, quote: str | None
                  ) -> Target:
        if block is None:
            return Target(None, label, "not in the case package")
        if quote:
            mark_id = self._mark(block, quote)
            if mark_id is not None:
                return Target(f"#{mark_id}", label)
            return Target(f"#{element}", label, "quote not found here")
        return Target(f"#{element}", label)

    def _step(self, ref: EvidenceRef) -> Target:
        label = f"step {ref.ref}"
        view = self.steps.get(int(ref.ref)) if ref.ref.isdigit() else None
        if view is None:
            return Target(None, label, "no such step in the trajectory")
        if ref.quote:
            for block in view.blocks:
                mark_id = self._mark(block, ref.quote)
                if mark_id is not None:
                    return Target(f"#{mark_id}", label)
            return Target(f"#{view.anchor}", label, "quote not found in this step")
        return Target(f"#{view.anchor}", label)

    def _find_artifact(self, name: str) -> ArtifactView | None:
        for art in self.artifacts:
            if name in (art.record.stored_as, art.record.path):
                return art
        return None

    def _artifact(self, name: str, quote: str | None) -> Target:
        art = self._find_artifact(name)
        if art is None:
            return Target(None, f"artifact {name}", "not an artifact of this case")
        label = f"artifact {name}"
        if quote and art.lines is not None:
            found = self._locate_lines(art, quote)
            if found is not None:
                return Target(f"#{art.line_id(found)}", f"{label} line {found}")
            return Target(f"#{art.anchor}", label, "quote not found in the shown content")
        return Target(f"#{art.anchor}", label)

    def _locate_lines(self, art: ArtifactView, quote: str) -> int | None:
        text = art.text
        for candidate in dict.fromkeys((quote, json_unescaped(quote))):
            found = locate(candidate, text)
            if found is not None:
                first = text.count("\n", 0, found[0]) + 1
                last = text.count("\n", 0, found[1]) + 1
                art.quoted.update(range(first, last + 1))
                return first
        return None

    def _tool_call(self, ref: EvidenceRef) -> EvidenceView:
        view = self.calls.get(ref.ref)
        label = f"judge call {ref.ref}"
        if view is None:
            return EvidenceView(ref, Target(None, label, "not in the recorded transcript"))
        target = Target(f"#{view.anchor}", label)
        if ref.quote and view.output is not None:
            classes = "quote" if ref.verified is not False else "quote unverified"
            mark_id = self._mark(view.output, ref.quote, classes)
            if mark_id is not None:
                target = Target(f"#{mark_id}", label)
            elif ref.verified:
                target = Target(f"#{view.anchor}", label, "matched after decoding JSON escapes")
            else:
                target = Target(f"#{view.anchor}", label, "quote not found in this output")
        echo = ref.quote is not None and len(ref.quote.strip()) >= MIN_ECHO_CHARS
        also = self._echoes(ref.quote) if ref.quote and echo else []
        for name in _ARTIFACT_PATH.findall(view.call.shown_input):
            art = self._find_artifact(name)
            if art is not None and all(t.href != f"#{art.anchor}" for t in also):
                also.append(Target(f"#{art.anchor}", f"artifact {name}"))
        return EvidenceView(ref, target, also)

    def _echoes(self, quote: str) -> list[Target]:
        """The first trajectory step (or else the final message), and the first artifact line,
        holding the quoted text."""
        found: list[Target] = []
        for view in self.steps.values():
            for block in view.blocks:
                mark_id = self._mark(block, quote, "quote echo")
                if mark_id is not None:
                    found.append(Target(f"#{mark_id}", f"in step {view.step.index}"))
                    break
            if found:
                break
        if not found and self.final_message is not None:
            mark_id = self._mark(self.final_message, quote, "quote echo")
            if mark_id is not None:
                found.append(Target(f"#{mark_id}", "in the final message"))
        for art in self.artifacts:
            if art.lines is not None:
                line = self._locate_lines(art, quote)
                if line is not None:
                    found.append(Target(f"#{art.line_id(line)}",
                                        f"in {art.record.stored_as or art.record.path} "
                                        f"line {line}"))
                    break
        return found
