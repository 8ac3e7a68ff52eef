"""Simulated annotators: the same one-call judge asked k times, each time with a different short
set of labelled dev examples in front of the case, and its confidence the share of votes.

An example is a *condensed* dev case, because whole trajectories are far too long to repeat k
times: the first `chars` characters of the instruction, how the run ended (status, steps, error
steps), the last `chars` characters of the agent's final message, and the verifier's outcome.
At the default 400 characters a set of two examples adds about 600 prompt tokens to each of the
k calls; they follow the case, so the k prompts share the case as a prefix (a server with a
prompt cache processes it once).

Sets are drawn deterministically: set j takes, for each label in turn, the example at a
position fixed by `sha256(seed, j, label)` among the pool's examples of that label, so each set
holds `per_set` examples alternating pass and fail (balanced, so the set itself does not tilt the
vote). The judged case never sees its own label: examples from the judged case or from any case
of the same task are left out of its sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases import Dataset, StepKind
from judge_runner.core import Label
from judge_runner.text import cut, sha256_text

DEFAULT_CHARS = 400
DEFAULT_PER_SET = 2


@dataclass(frozen=True)
class Example:
    case_id: str
    task: str | None
    label: Label
    text: str  # the condensed case, without its label


def load_examples(root: Path, chars: int = DEFAULT_CHARS,
                  only: Path | None = None) -> tuple[Example, ...]:
    """Condensed labelled cases of the dataset at `root` (only the ids listed in the file
    `only`, when given), in case-id order; unlabelled or unreadable cases are skipped. Raises
    ValueError when no labelled case remains, OSError for an unreadable id file."""
    dataset = Dataset(root)
    labels = dataset.labels()
    wanted = set(only.read_text(encoding="utf-8").split()) if only is not None else None
    examples: list[Example] = []
    for case_id in dataset.case_ids():
        if case_id not in labels or (wanted is not None and case_id not in wanted):
            continue
        case = dataset.case(case_id)
        try:
            meta, trajectory, instruction = case.meta, case.trajectory, case.instruction
        except (OSError, ValueError):
            continue
        errors = sum(1 for s in trajectory.steps if s.is_error)
        tools = sum(1 for s in trajectory.steps if s.kind is StepKind.TOOL_CALL)
        head, _ = cut(instruction.strip(), chars, head=chars)
        final, _ = cut((trajectory.final_message or "(none)").strip(), chars, head=0)
        text = (f"Task: {head}\nRun: {trajectory.termination.status.value}, "
                f"{len(trajectory.steps)} steps, {tools} tool calls, {errors} error steps\n"
                f"Final message: {final}")
        examples.append(Example(case_id, meta.task, labels[case_id].label, text))
    if not examples:
        raise ValueError(f"{root}: no labelled case to draw in-context examples from")
    return tuple(examples)


def example_set(pool: Sequence[Example], index: int, *, case_id: str, task: str | None,
                per_set: int = DEFAULT_PER_SET, seed: int = 0) -> list[Example]:
    """Set `index` for the judged case (see the module docstring); fewer examples when the
    pool, without the judged case's task, has fewer."""
    usable = [e for e in pool if e.case_id != case_id and (task is None or e.task != task)]
    by_label = {label: [e for e in usable if e.label is label] for label in Label}
    chosen: list[Example] = []
    for slot in range(per_set):
        label = (Label.PASS, Label.FAIL)[(slot + index) % 2]
        candidates = [e for e in by_label[label] if e not in chosen]
        if not candidates:
            candidates = [e for e in usable if e not in chosen]
        if not candidates:
            break
        position = int(sha256_text(f"{seed}:{index}:{slot}:{label.value}")[:12], 16)
        chosen.append(candidates[position % len(candidates)])
    return chosen


def render_examples(examples: Sequence[Example]) -> str:
    """The examples as a prompt section placed after the case: the k calls then share the
    case's prompt as a prefix, which a server's prompt cache reuses."""
    if not examples:
        return ""
    parts = ["", "", "# Labelled examples of OTHER runs (condensed; not the run to judge)", "",
             "How the official check judged a few other runs, to calibrate your judgement. "
             "Decide the run above on its own evidence.", ""]
    for number, example in enumerate(examples, start=1):
        parts += [f"## Example {number}: the official check said {example.label.value.upper()}",
                  "", example.text, ""]
    parts += ["Now judge the run above (the case, not these examples): call submit_verdict."]
    return "\n".join(parts)
