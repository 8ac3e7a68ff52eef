"""Case packages for tests, every one written by one builder over the production writer.

`build_case` writes a package through `judge_runner.cases.write_case`, so whatever a test builds
is a package `validate_dataset` accepts: stats counted from the written trajectory, artifact
sizes and hashes taken from the stored bytes, a call id on every tool call with output. Steps are
drafted with `msg`, `bash`, `write`, `read`, `skill` and `notice` and numbered by the builder.
A case's label goes to labels.jsonl and its verifier evidence to evidence/<case id>/ (outside
cases/, where the importer puts them); both are registered in SECRETS as they are written, so the
judge tests' suite-wide guard (tests/judges/conftest.py) can assert none of it reached a model.

Datasets that several test folders share:
- `summing_dataset`: the sum-numbers task; a total of 42 is labelled pass, anything else fail.
- `answer_dataset` of `AnswerCase`s (`mixed_answers`): one-message cases whose answer.txt
  artifact tells a scripted judge what to answer.
- `GOOD_RUN`, `VERIFIED_RUN`, `mixed_certainty_dataset`, `last_tests_dataset`: crafted runs for the
  rules judge.
- `dev_pool`: the evolution tests' labelled pool and gate, with ctrf verifier evidence.
- `imported_examples`: the bundled example trials, through the importer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from judge_runner.cases import (
    CaseMeta,
    CasePackage,
    Dataset,
    Domain,
    Label,
    LabelRecord,
    Source,
    Step,
    StepKind,
    Termination,
    TerminationStatus,
    Trajectory,
    write_case,
)
from judge_runner.cases.write import label_line
from judge_runner.ingest import ImportOptions, import_trials
from tests.conftest import EXAMPLES, require

# --- steps ------------------------------------------------------------------------------------


def msg(text: str) -> Step:
    return _draft(kind=StepKind.ASSISTANT_MESSAGE, text=text)


def bash(command: str, output: str = "", exit_code: int | None = 0, **extra: Any) -> Step:
    """A Bash call; a non-zero exit code makes it an error step. `extra`: more Step fields."""
    return _draft(kind=StepKind.TOOL_CALL, tool="Bash", arguments={"command": command},
                  output=output, exit_code=exit_code, is_error=bool(exit_code), **extra)


def write(path: str, content: str, output: str | None = None, **extra: Any) -> Step:
    """A Write call touching `path`; the output defaults to Claude Code's confirmation."""
    return _draft(kind=StepKind.TOOL_CALL, tool="Write",
                  arguments={"file_path": path, "content": content},
                  output=f"File created successfully at: {path}" if output is None else output,
                  files_touched=[path], **extra)


def read(path: str, output: str, is_error: bool = False) -> Step:
    return _draft(kind=StepKind.TOOL_CALL, tool="Read", arguments={"file_path": path},
                  output=output, is_error=is_error)


def skill(name: str, body: str) -> Step:
    return _draft(kind=StepKind.SKILL_USE, tool="Skill", skill=name, text=body)


def notice(text: str) -> Step:
    return _draft(kind=StepKind.NOTICE, text=text)


def _draft(**fields: Any) -> Step:
    return Step(index=0, **fields)  # numbered when its case is built


def numbered(steps: Sequence[Step]) -> list[Step]:
    """`steps` indexed from 0; a tool call with output and no id gets `call-<index>`, as a real
    transcript gives every call an id."""
    out = []
    for index, step in enumerate(steps):
        update: dict[str, Any] = {"index": index}
        if step.kind is StepKind.TOOL_CALL and step.output is not None and not step.tool_use_id:
            update["tool_use_id"] = f"call-{index}"
        out.append(step.model_copy(update=update))
    return out


# --- one case -----------------------------------------------------------------------------------

INSTRUCTION = "Read `/root/input.csv` and save the total to `/root/out.json`.\n"
TABLES_SKILL: Mapping[str, str] = MappingProxyType({"tables": "# tables\n"})  # a shared default
GOOD_RUN: list[Step] = [
    msg("I will look at the input first."),
    skill("tables", "Use `scripts/total.py` to add a column."),
    bash("python3 /root/skills/tables/scripts/total.py /root/input.csv", "6\n"),
    write("/root/out.json", '{"total": 6}'),
    read("/root/out.json", '{"total": 6}'),
    msg("The total (6) has been saved to `/root/out.json`."),
]


def build_case(
    root: Path,
    steps: Sequence[Step] | None = None,
    *,
    case_id: str = "case-1",
    task: str = "crafted",
    domain: Domain | None = None,
    instruction: str = INSTRUCTION,
    status: TerminationStatus = TerminationStatus.COMPLETED,
    subtype: str | None = "success",
    count_turns: bool = True,
    final_message: str | None = None,
    skills: Mapping[str, str] = TABLES_SKILL,
    artifacts: Mapping[str, bytes | str] | None = None,
    model: str | None = None,
    label: Label | None = None,
    evidence: Mapping[str, str] | None = None,
) -> CasePackage:
    """Write `<root>/cases/<case_id>/` and return it.

    steps: drafts (default GOOD_RUN). final_message: None takes the last assistant message,
    except when the run ended without a result. subtype: the result subtype of a run that ended
    with one; count_turns: record the number of steps as its turns. skills: skill name ->
    SKILL.md text. artifacts: path as the agent saw it -> content. label: appended to
    labels.jsonl (reward 1 for pass, 0 otherwise). evidence: path under evidence/<case_id>/ ->
    text.
    """
    built = numbered(GOOD_RUN if steps is None else steps)
    ended = status is not TerminationStatus.NO_RESULT
    if final_message is None:
        texts = [s.text for s in built if s.kind is StepKind.ASSISTANT_MESSAGE and s.text]
        final_message = texts[-1] if texts and ended else None
    trajectory = Trajectory(
        case_id=case_id, source_format="test", steps=built, final_message=final_message,
        termination=Termination(status=status, result_subtype=subtype if ended else None,
                                num_turns=len(built) if count_turns else None))
    record = None if label is None else LabelRecord(
        case_id=case_id, label=label, reward=1.0 if label is Label.PASS else 0.0)
    case = write_case(
        root, task=task, domain=domain, instruction=instruction, trajectory=trajectory,
        source=Source(trial_path=f"trials/{case_id}", trial_name=case_id, model=model,
                      transcript_format="test"),
        skills={name: {"SKILL.md": text} for name, text in skills.items()},
        artifacts=artifacts, label=record)
    for rel, text in (evidence or {}).items():
        path = root / "evidence" / case_id / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _remember([label_line(record).strip()] if record else [])
    _remember(_evidence_secrets(root, case_id, _package_text(root / "cases" / case_id)))
    return case


def point_artifact_at(case_dir: Path, stored_as: str) -> None:
    """Rewrite the case's first artifact record to claim it is stored at `stored_as` (a crafted
    case.json reaching for files outside `artifacts/`)."""
    meta = CaseMeta.model_validate_json((case_dir / "case.json").read_text())
    record = meta.artifacts[0].model_copy(update={"stored_as": stored_as})
    meta = meta.model_copy(update={"artifacts": [record, *meta.artifacts[1:]]})
    (case_dir / "case.json").write_text(meta.model_dump_json(indent=1))


# --- what a judge must never read -------------------------------------------------------------

# Label lines and verifier evidence lines of every dataset built or imported so far (a dict for
# an ordered set: the same dataset is built by many tests).
SECRETS: dict[str, None] = {}


def secrets_of(dataset_root: Path) -> list[str]:
    """Label lines, and evidence lines (≥ 16 characters) of a dataset on disk.

    An evidence line that also occurs in a case package of the dataset (say a pytest summary
    the agent of this run, or of another run of the same task, saw in its own run) is text a
    judge may legitimately be sent, so it is not a secret; label lines always are.
    """
    found: list[str] = []
    labels = dataset_root / "labels.jsonl"
    if labels.is_file():
        found += [ln.strip() for ln in labels.read_text().splitlines() if ln.strip()]
    evidence_root = dataset_root / "evidence"
    if evidence_root.is_dir():
        public = _package_text(dataset_root / "cases")
        for case_evidence in sorted(p for p in evidence_root.iterdir() if p.is_dir()):
            found += _evidence_secrets(dataset_root, case_evidence.name, public)
    return found


def register_secrets(dataset_root: Path) -> None:
    _remember(secrets_of(dataset_root))


def register_case_secrets(dataset_root: Path, case_ids: list[str]) -> None:
    """The label lines of the dataset and the evidence lines of these cases only: for tests that
    send a few cases of a pool whose runs share an environment, where one run's verifier output
    repeats lines another run's agent saw (a directory listing of the same image)."""
    labels = dataset_root / "labels.jsonl"
    lines = labels.read_text().splitlines() if labels.is_file() else []
    _remember([ln.strip() for ln in lines if ln.strip()] +
              [s for c in case_ids
               for s in _evidence_secrets(dataset_root, c,
                                          _package_text(dataset_root / "cases" / c))])


def _remember(secrets: list[str]) -> None:
    SECRETS.update(dict.fromkeys(secrets))


def _evidence_secrets(dataset_root: Path, case_id: str, public: str) -> list[str]:
    """Evidence lines of one case (≥ 16 characters) that do not occur in `public`."""
    case_evidence = dataset_root / "evidence" / case_id
    if not case_evidence.is_dir():
        return []
    found: list[str] = []
    for path in sorted(p for p in case_evidence.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [ln.strip() for ln in text.splitlines()
                  if len(ln.strip()) >= 16 and ln.strip() not in public]
    return found


def _package_text(case_dir: Path) -> str:
    if not case_dir.is_dir():
        return ""
    files = sorted(p for p in case_dir.rglob("*") if p.is_file())
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


def imported_examples(out: Path) -> Dataset:
    """The bundled example trials imported into `out` (labels and evidence registered)."""
    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    dataset = Dataset(out)
    require(bool(dataset.case_ids()), "the bundled examples imported no case")
    register_secrets(out)
    return dataset


# --- the sum-numbers task -----------------------------------------------------------------------

SUMMING_INSTRUCTION = (
    "Sum the numbers in /root/input.txt and write /root/out.json as {\"total\": <sum>}.\n"
)
SUMMING_SKILL_MD = "---\nname: summing\ndescription: adding numbers\n---\nUse python3 to add.\n"


def summing_evidence(case_id: str) -> str:
    return f"VERIFIER-EVIDENCE {case_id}: expected total 42, got 41; test_total FAILED-XQ7\n"


def summing_dataset(root: Path, totals: dict[str, int], filler_steps: int = 0) -> Dataset:
    """A dataset with one case per entry of `totals` (case id -> total written to out.json).

    A total of 42 is labelled pass, anything else fail. `filler_steps` adds long tool steps so
    the trajectory needs several read_file pages.
    """
    for case_id, total in sorted(totals.items()):
        out = json.dumps({"total": total})
        steps = [
            msg("I will read the input."),
            bash("cat /root/input.txt", "20\n21\n1\n", tool_use_id="t1"),
            skill("summing", "Use python3 to add."),
            write("/root/out.json", out, output="ok", tool_use_id="t2"),
            *[bash(f"echo filler {i}", f"filler line {i} " * 200, tool_use_id=f"f{i}")
              for i in range(filler_steps)],
        ]
        build_case(root, steps, case_id=case_id, task="sum-numbers", domain=Domain.MATHEMATICS,
                   instruction=SUMMING_INSTRUCTION, subtype=None,
                   final_message=f"Done: total is {total}.",
                   skills={"summing": SUMMING_SKILL_MD}, artifacts={"/root/out.json": out},
                   label=Label.PASS if total == 42 else Label.FAIL,
                   evidence={"test-stdout.txt": summing_evidence(case_id)})
    return Dataset(root)


def example_pool(root: Path, totals: Mapping[str, int] | None = None) -> Dataset:
    """Labelled cases to draw in-context examples from: three small tasks (alpha, beta, gamma),
    a pass and a fail each, whose final message is "final words of <case id>", beside the
    sum-numbers cases of `totals` (none by default), so that a judged sum-numbers case and its
    task are in the pool for the draw to leave out."""
    if totals:
        summing_dataset(root, dict(totals))
    for task in ("alpha", "beta", "gamma"):
        for label in Label:
            build_case(root, GOOD_RUN, case_id=f"{task}-{label.value}", task=task, label=label,
                       final_message=f"final words of {task}-{label.value}")
    return Dataset(root)


# --- answers for scripted judges ----------------------------------------------------------------


@dataclass(frozen=True)
class AnswerCase:
    case_id: str
    task: str
    domain: Domain | None
    label: Label | None
    answer: str  # what the scripted judge will read: pass | fail | abstain | raise
    report: str = "done"  # the agent's only message, also its final message


def answer_case(root: Path, case: AnswerCase,
                evidence: Mapping[str, str] | None = None) -> CasePackage:
    return build_case(root, [msg(case.report)], case_id=case.case_id, task=case.task,
                      domain=case.domain, instruction=f"Solve {case.task}.\n", subtype=None,
                      count_turns=False, skills={}, artifacts={"answer.txt": case.answer + "\n"},
                      label=case.label, evidence=evidence)


def answer_dataset(root: Path, cases: Sequence[AnswerCase]) -> Path:
    """One case package per answer case, labels included; returns `root`."""
    for case in cases:
        answer_case(root, case)
    return root


def mixed_answers(n: int) -> list[AnswerCase]:
    """n cases over a few tasks/domains; the scripted answer is right on two of every three."""
    domains = [Domain.FINANCE, Domain.ENERGY, Domain.ROBOTICS]
    cases = []
    for i in range(n):
        label = Label.PASS if i % 3 == 0 else Label.FAIL
        wrong = i % 3 == 2
        answer = (Label.FAIL if label is Label.PASS else Label.PASS).value if wrong else label.value
        cases.append(AnswerCase(case_id=f"case-{i:03d}", task=f"task-{i % 4}",
                                domain=domains[i % len(domains)], label=label, answer=answer))
    return cases


# --- the evolution pool -------------------------------------------------------------------------

# Fail answers carry one of two failure signals; pass answers carry none.
SIGNALS = ("missing-output", "traceback")


def dev_pool(
    root: Path, n_tasks: int = 6, per_task: int = 12, gate_fail: int = 27, gate_pass: int = 9
) -> tuple[Path, list[str], list[str]]:
    """Write `root/dataset`; return (dataset dir, dev ids, gate ids). The gate holds `gate_fail`
    fail and `gate_pass` pass cases spread over the tasks; the rest is the dev pool. The answer
    also ends the trajectory, as the agent's final report; each case has a ctrf.json under
    evidence/<case>/verifier/, the importer's layout."""
    domains = (Domain.FINANCE, Domain.ENERGY, Domain.ROBOTICS)
    dataset = root / "dataset"
    cases: list[AnswerCase] = []
    for t in range(n_tasks):
        for k in range(per_task):
            label = Label.PASS if k % 4 == 0 else Label.FAIL
            answer = "ok" if label is Label.PASS else f"{SIGNALS[k % 2]} in run {k}"
            case = AnswerCase(case_id=f"t{t}-c{k:02d}", task=f"family-{t}",
                              domain=domains[t % 3], label=label, answer=answer,
                              report=f"Finished: {answer}")
            answer_case(dataset, case, evidence={"verifier/ctrf.json": _ctrf(case)})
            cases.append(case)
    fails = [c.case_id for c in cases if c.label is Label.FAIL]
    passes = [c.case_id for c in cases if c.label is Label.PASS]
    gate = sorted(fails[::2][:gate_fail] + passes[::2][:gate_pass])
    dev = sorted(c.case_id for c in cases if c.case_id not in set(gate))
    return dataset, dev, gate


def _ctrf(case: AnswerCase) -> str:
    failed = [] if case.label is Label.PASS else [{
        "name": "test_outputs.py::test_result_matches_reference",
        "status": "failed",
        "message": f"AssertionError: reference value differs for {case.case_id} run",
    }]
    return json.dumps({"results": {"summary": {"tests": 2, "passed": 2 - len(failed)},
                                   "tests": failed}})


# --- crafted runs for the rules judge -----------------------------------------------------------

VERIFIED_RUN = [
    msg("I will look at the input first."),
    skill("tables", "Use `scripts/total.py` to add a column."),
    bash("python3 /root/skills/tables/scripts/total.py /root/input.csv > /root/out.json", ""),
    bash("cat /root/out.json", '{"total": 6}'),
    bash("pytest -q tests/", "3 passed in 0.1s"),
    msg("The total (6) has been saved to `/root/out.json`."),
]
# the rules judge decides these two; a model judge the other two
SURE = {"sure-pass": Label.PASS, "sure-fail": Label.FAIL}
UNSURE = {"unsure-pass": Label.PASS, "unsure-fail": Label.FAIL}


def mixed_certainty_dataset(root: Path) -> Path:
    """Four labelled cases: two the rules judge (v2, abstaining) decides, two it abstains on
    (typed output: evidence either way)."""
    sure_runs = {"sure-pass": (VERIFIED_RUN, TerminationStatus.COMPLETED),
                 "sure-fail": (GOOD_RUN, TerminationStatus.NO_RESULT)}
    for case_id, label in sorted({**SURE, **UNSURE}.items()):
        steps, status = sure_runs.get(case_id, (GOOD_RUN, TerminationStatus.COMPLETED))
        build_case(root, steps, case_id=case_id, status=status, label=label)
    return root


FAILED_TESTS = bash("pytest -q tests/", "1 failed, 2 passed in 0.1s")


def last_tests_dataset(root: Path) -> Path:
    """Six tasks of four labelled cases for fitting the rules judge: a run whose last tests
    passed is mostly labelled pass, one whose tests failed mostly fail (in each task one case
    goes the other way)."""
    for t in range(6):
        for n, (passed, label) in enumerate([(True, Label.PASS), (True, Label.PASS),
                                             (False, Label.FAIL), (False, Label.FAIL)]):
            if n == t % 4:  # the exception of this task
                label = Label.FAIL if label is Label.PASS else Label.PASS
            steps = VERIFIED_RUN if passed else [*VERIFIED_RUN[:4], FAILED_TESTS,
                                                 VERIFIED_RUN[5]]
            build_case(root, steps, case_id=f"t{t}-c{n}", task=f"task-{t}", label=label)
    register_secrets(root)
    return root
