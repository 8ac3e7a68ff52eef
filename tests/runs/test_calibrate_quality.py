"""`calibrate` reports how well the confidence tracks correctness, and for simulated annotators
compares the vote share with the first annotator's own stated confidence on the same cases."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from judge_runner.calibration import Scored, load, quality
from judge_runner.core import Label
from tests.casebuilder import GOOD_RUN, build_case
from tests.fakeapi import FakeMessagesServer, ReceivedRequest, reply, tool_use
from tests.fakeapi.server import Scripted
from tests.runs.test_calibrate import invoke

# per judged case: each annotator's (decision, stated confidence)
SCRIPT = {
    "alpha-pass": [("pass", 0.9), ("pass", 0.6), ("pass", 0.7)],
    "alpha-fail": [("fail", 0.55), ("fail", 0.9), ("pass", 0.9)],
    "beta-pass": [("pass", 0.95), ("fail", 0.8), ("fail", 0.8)],
    "beta-fail": [("pass", 0.5), ("pass", 0.9), ("pass", 0.9)],
    "gamma-pass": [("pass", 0.8), ("pass", 0.7), ("fail", 0.6)],
    "gamma-fail": [("fail", 0.6), ("fail", 0.9), ("fail", 0.9)],
}


def test_calibrate_compares_the_vote_share_with_a_stated_confidence(
    fake_api: FakeMessagesServer, tmp_path: Path
) -> None:
    root = tmp_path / "ds"
    for case_id in SCRIPT:
        task, label = case_id.split("-")
        build_case(root, GOOD_RUN, case_id=case_id, task=task, label=Label(label),
                   final_message=f"closing words of run {case_id}")
    asked: Counter[str] = Counter()

    def answer(request: ReceivedRequest) -> Scripted:
        judged = re.search(r"closing words of run (\w+-\w+)", request.text)
        assert judged is not None
        case_id = judged.group(1)  # the case comes first, the examples after it
        decision, stated = SCRIPT[case_id][asked[case_id]]
        asked[case_id] += 1
        return reply(tool_use("submit_verdict", {"decision": decision, "confidence": stated,
                                                 "rationale": "scripted"}))

    fake_api.responder = answer
    run = tmp_path / "dev"
    invoke("eval", str(root), "--judge", "direct", "--model", "claude-test", "--base-url",
           fake_api.base_url, "-o", "annotators=3", "-o", f"examples={root}", "-c", "1",
           "--run-dir", str(run), "--no-progress")
    assert asked == Counter({case_id: 3 for case_id in SCRIPT})
    out = tmp_path / "calibration.json"
    said = invoke("calibrate", str(run), "--agreement", "0.8", "--delta", "0.1", "--out",
                  str(out))
    calibration = load(out)

    def share(votes: list[tuple[str, float]]) -> tuple[str, float]:
        passes = sum(1 for d, _ in votes if d == "pass")
        side = "pass" if passes > len(votes) - passes else "fail"
        return side, round(max(passes, len(votes) - passes) / len(votes), 6)

    votes = [Scored(share(v)[1], share(v)[0] == c.split("-")[1]) for c, v in SCRIPT.items()]
    first = [Scored(v[0][1], v[0][0] == c.split("-")[1]) for c, v in SCRIPT.items()]
    assert calibration.quality == quality(votes)
    assert calibration.stated_quality == quality(first)
    assert calibration.quality is not None and calibration.stated_quality is not None
    # here the stated confidence ranks the right answers first, the vote share does not
    assert calibration.stated_quality.aurc < calibration.quality.aurc
    assert "first annotator's stated confidence: Brier" in said
    assert f"AURC {calibration.quality.aurc:.3f}" in said
