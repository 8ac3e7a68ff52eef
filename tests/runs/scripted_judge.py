"""A real judge for tests: decides from `artifacts/answer.txt`, with a configurable latency.

Selected on the command line as `--judge tests.runs.scripted_judge:make_judge`. Options (via
JudgeOptions.extra or environment variables, so a CLI subprocess can set them):

- latency (JR_TEST_LATENCY): seconds to sleep per case
- calls_log (JR_TEST_CALLS_LOG): a file that gets one line per judge call (appended atomically)
- tag: anything; part of the config, so changing it changes the run's identity

Answers: pass | fail | abstain | raise, or `unsupported` (a pass whose citations did not
resolve, with 3 evidence quotes of which 1 was verified).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from judge_runner.cases import CasePackage
from judge_runner.judges import Decision, Inspection, Outcome, Plan, PlanItem, Verdict
from judge_runner.judges.products import write_products
from judge_runner.judges.registry import JudgeOptions
from judge_runner.models import Usage

_DECISIONS = {"pass": Decision.PASS, "fail": Decision.FAIL, "abstain": Decision.ABSTAIN}


class ScriptedJudge:
    name = "scripted"

    def __init__(self, latency: float, calls_log: Path | None, tag: str) -> None:
        self.latency = latency
        self.calls_log = calls_log
        self.tag = tag

    def config(self) -> dict[str, Any]:
        return {"tag": self.tag, "reads": "artifacts/answer.txt"}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        started = time.monotonic()
        answer = logged_answer(case, self.calls_log, case.id, self.latency)
        if answer == "raise":
            raise RuntimeError(f"scripted failure on {case.id}")
        plan = Plan(items=[PlanItem(id="P1", what="read the answer file",
                                    where="artifacts/answer.txt", support="pass",
                                    refute="fail", critical=True)])
        unsupported = answer == "unsupported"
        decision = Decision.PASS if unsupported else _DECISIONS.get(answer, Decision.ERROR)
        outcome = {Decision.PASS: Outcome.SUPPORTS, Decision.FAIL: Outcome.REFUTES}.get(
            decision, Outcome.INCONCLUSIVE)
        log = [Inspection(id="I1", plan_item="P1", check="cat artifacts/answer.txt",
                          finding=f"the file says {answer!r}", outcome=outcome, critical=True)]
        verdict = Verdict(
            case_id=case.id, judge=self.name, decision=decision,
            rationale=f"answer file says {answer}", citations=["I1"],
            error=None if decision is not Decision.ERROR else f"unknown answer {answer!r}",
            usage=Usage(input_tokens=100, output_tokens=10, cost_usd=0.001, calls=1),
            duration_s=time.monotonic() - started, unsupported=unsupported,
            details={"evidence": {"quotes": 3, "verified": 1}} if unsupported else {},
        )
        write_products(out_dir, plan, log, verdict)
        return verdict


def logged_answer(case: CasePackage, calls_log: Path | None, entry: str, latency: float) -> str:
    """How a scripted judgment starts: append the line `entry` to `calls_log` (one O_APPEND
    write, so judges in parallel processes never interleave lines), wait `latency` seconds,
    then read the case's answer."""
    if calls_log is not None:
        fd = os.open(calls_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{entry}\n".encode())
        finally:
            os.close(fd)
    time.sleep(latency)
    return (case.artifacts_dir / "answer.txt").read_text(encoding="utf-8").strip()


def make_judge(options: JudgeOptions) -> ScriptedJudge:
    latency = float(options.extra.get("latency", os.environ.get("JR_TEST_LATENCY", "0")))
    calls = options.extra.get("calls_log", os.environ.get("JR_TEST_CALLS_LOG"))
    return ScriptedJudge(latency=latency, calls_log=Path(calls) if calls else None,
                         tag=str(options.extra.get("tag", options.model or "")))
