"""Runs for viewer tests, made by real judges through `run_eval`.

- `hostile_dataset`: cases whose trajectory, instruction and artifact carry HTML and script
  text, a cut marker, an error step and a skill use.
- `CitingJudge`: a judge citing every evidence kind (a step quote, an artifact quote, the
  instruction, a skill, a step that does not exist) and recording one quote as unverified.
- `agent_run`: the agent judge on the bundled examples against the scripted Messages server,
  one quote per case deliberately not in the output it cites (so it is stored unverified).
- `checklist_run`: checklists for the bundled tasks from the scripted synthesizer, then the
  checklist judge over the examples with the scripted item judge (both through the CLI).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge_runner.cases import (
    CasePackage,
    Dataset,
    Domain,
    Label,
)
from judge_runner.core import Decision, EvidenceRef, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.products import write_products
from judge_runner.runs.runner import RunResult, run_eval
from tests.casebuilder import bash, build_case, msg, skill, write
from tests.checklist import scripted
from tests.checklist.runs import eval_checklist, synthesize
from tests.fakeapi import FakeMessagesServer, Reply, reply, tool_use
from tests.judges import sessions

REPO = Path(__file__).resolve().parents[2]
SCRIPT = '<script>window.__pwned = 1; document.title = "pwned"</script>'
UNVERIFIED_QUOTE = "this sentence was never printed by anything"
OUTPUT_QUOTE = "3 passed, 1 failed"


def hostile_dataset(root: Path, n: int = 3) -> Dataset:
    """`n` cases; case-0 is labelled fail, the others pass. Each step output holds a script."""
    for i in range(n):
        steps = [
            msg(f"Plan **bold** {SCRIPT}"),
            bash("pytest -q", f"collected 4 items\n{SCRIPT}\n{OUTPUT_QUOTE}\n" + "x\n" * 60, 1,
                 tool_use_id="t1"),
            skill("checking", "# Checking\nRun the tests."),
            write("/root/out.txt", "total 42", output="ok", tool_use_id="t2"),
            bash("cat big.log", "head\n[... 5000 characters omitted ...]\ntail", None,
                 tool_use_id="t3", omitted_chars=5000),
        ]
        build_case(root, steps, case_id=f"case-{i}", task=f"task-{i % 2}",
                   domain=Domain.MATHEMATICS,
                   instruction=f"# Task\nWrite /root/out.txt.\n\n<img src=x onerror=alert(1)>\n"
                               f"{SCRIPT}\n",
                   subtype=None, final_message="Done.",
                   skills={"checking": "---\nname: checking\ndescription: d\n---\n"
                                       "# Checking\nRun the tests.\n"},
                   artifacts={"/root/out.txt": f"line one\ntotal 42\n{SCRIPT}\n"},
                   label=Label.FAIL if i == 0 else Label.PASS)
    return Dataset(root)


class CitingJudge:
    """Passes every case, citing each kind of evidence; `tag` changes the configuration, and
    cases in `fail_cases` are failed instead (to make two runs that differ)."""

    name = "citing"

    def __init__(self, tag: str = "a", fail_cases: frozenset[str] = frozenset()) -> None:
        self.tag = tag
        self.fail_cases = fail_cases

    def config(self) -> dict[str, Any]:
        return {"tag": self.tag, "fail": sorted(self.fail_cases)}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        plan = Plan(items=[PlanItem(id="P1", what="tests pass", where="step 1",
                                    support="all pass", refute="a failure")])
        evidence = [
            EvidenceRef(kind="step", ref="1", quote=OUTPUT_QUOTE),
            EvidenceRef(kind="artifact", ref="root/out.txt", quote="total 42"),
            EvidenceRef(kind="instruction", ref="instruction.md"),
            EvidenceRef(kind="skill", ref="checking"),
            EvidenceRef(kind="step", ref="999"),
            EvidenceRef(kind="step", ref="0", quote=UNVERIFIED_QUOTE, verified=False),
        ]
        log = [Inspection(id="I1", plan_item="P1", check="read the test output",
                          finding=f"saw {OUTPUT_QUOTE} {SCRIPT}", outcome=Outcome.REFUTES,
                          evidence=evidence)]
        decision = Decision.FAIL if case.id in self.fail_cases else Decision.PASS
        verdict = Verdict(case_id=case.id, judge=self.name, decision=decision,
                          rationale=f"{decision.value} because of I1 {SCRIPT}",
                          citations=["I1", "I9"],
                          details={"evidence": {"quotes": 3, "verified": 2}})
        write_products(out_dir, plan, log, verdict)
        return verdict


def citing_run(dataset: Dataset, run_dir: Path, judge: CitingJudge | None = None) -> RunResult:
    return run_eval(judge or CitingJudge(), dataset, dataset.case_ids(), run_dir,
                    concurrency=1, progress=False)


def _agent_session(case: CasePackage, decision: str) -> list[Reply]:
    """Plan, read an artifact (quoted exactly), print the final message (quoted with a sentence
    that is not in it, so the quote is unverified), page the trajectory, decide."""
    stored = next(a.stored_as for a in case.meta.artifacts if a.stored_as)
    artifact_text = (case.artifacts_dir / stored).read_text(encoding="utf-8")
    final = case.trajectory.final_message or ""
    return [
        sessions.plan(),
        sessions.bash(f"head -c 4000 /case/artifacts/{stored}", "tu_bash_artifact"),
        sessions.inspection("P1", "tu_bash_artifact", sessions.first_line(artifact_text),
                            "supports", "tu_rec1"),
        sessions.bash(sessions.FINAL_MESSAGE_CMD, "tu_bash_final"),
        sessions.inspection("P2", "tu_bash_final", sessions.first_line(final), "supports",
                            "tu_rec2"),
        reply(tool_use("record_inspection", {
            "plan_item": "P2", "check": "read the final message", "finding": "claims success",
            "outcome": "supports",
            "evidence": [{"tool_call_id": "tu_bash_final", "quote": UNVERIFIED_QUOTE}]},
            id="tu_rec3")),
        sessions.verdict(decision, ["I1", "I2", "I3"]),
    ]


def agent_cases(dataset: Dataset) -> list[str]:
    """The example cases the scripted session can inspect (a final message and a stored file)."""
    return [c.id for c in dataset.cases()
            if c.trajectory.final_message and any(a.stored_as for a in c.meta.artifacts)]


def agent_run(dataset: Dataset, run_dir: Path, server: FakeMessagesServer,
              sandbox: str = "local") -> RunResult:
    """The agent judge over `agent_cases`, failing every one of them (some are misjudged)."""
    from judge_runner.judges.agent import make_judge
    from judge_runner.judges.registry import JudgeOptions

    ids = agent_cases(dataset)
    server.responder = sessions.responder_for(
        {case_id: _agent_session(dataset.case(case_id), "fail") for case_id in ids})
    judge = make_judge(JudgeOptions(skill=REPO / "judgeskills" / "v1", model="claude-view",
                                    base_url=server.base_url, sandbox=sandbox))
    return run_eval(judge, dataset, ids, run_dir, concurrency=1, progress=False)


def checklist_run(dataset: Path, checklists: Path, run_dir: Path) -> Path:
    """`checklist synth` of the bundled tasks into `checklists`, then `eval --judge checklist`
    of `dataset` into `run_dir`, each answered by its scripted model; returns `run_dir`."""
    server = FakeMessagesServer().start()
    try:
        synthesize(server, REPO / "bench" / "examples" / "tasks", checklists)
        server.responder = scripted.judge_responder
        eval_checklist(dataset, checklists, run_dir, "--model", "m-judge", "--base-url",
                       server.base_url)
    finally:
        server.stop()
    return run_dir
