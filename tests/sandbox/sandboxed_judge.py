"""A real judge for tests that holds a sandbox open: it opens the chosen sandbox for its case (in
the runner's worker thread, as every judge does), announces the container, then runs a long
command in it.

Selected on the command line as `--judge tests.sandbox.sandboxed_judge:make_judge` with
``--sandbox docker``. Environment (so a CLI subprocess can set it):

- JR_TEST_ANNOUNCE: a file that gets one line per opened sandbox (its container name)
- JR_TEST_SANDBOX_LABELS: JSON object of extra container labels
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from judge_runner.cases import CasePackage
from judge_runner.judges import Decision, Verdict
from judge_runner.judges.registry import JudgeOptions
from judge_runner.sandbox import open_sandbox


class SandboxedJudge:
    name = "sandboxed"

    def __init__(self, sandbox: str, announce: Path, labels: dict[str, str]) -> None:
        self.sandbox = sandbox
        self.announce = announce
        self.labels = labels

    def config(self) -> dict[str, Any]:
        return {"sandbox": self.sandbox}

    def judge(self, case: CasePackage, out_dir: Path) -> Verdict:
        with open_sandbox(self.sandbox, case, labels=self.labels) as box:
            fd = os.open(self.announce, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, f"{getattr(box, 'name', box.kind)}\n".encode())
            finally:
                os.close(fd)
            result = box.exec("sleep 300", timeout=300)
        return Verdict(case_id=case.id, judge=self.name, decision=Decision.ERROR,
                       error=f"the sleep ended: {result.exit_code}")


def make_judge(options: JudgeOptions) -> SandboxedJudge:
    labels = json.loads(os.environ.get("JR_TEST_SANDBOX_LABELS", "{}"))
    return SandboxedJudge(options.sandbox, Path(os.environ["JR_TEST_ANNOUNCE"]), labels)
