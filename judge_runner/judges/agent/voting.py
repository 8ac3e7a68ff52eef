"""Several sessions of the agent judge on one case, and their vote (`-o sessions=k`).

Session j (0-based) runs in `<case folder>/session-<j+1>/`, with its own sandbox, its own
transcript.jsonl (so `--replay` finds every session's calls) and its own plan.md,
inspection_log.jsonl and verdict.json, and sees example set j after its case message
(`annotators.py`: at temperature 0 the sessions differ only by their examples). The case's own
verdict is the vote over the sessions' verdicts (`annotators.tally`): the majority of decided
votes, a tie is fail, the confidence is the share of all k sessions voting for the decision; a
session that ended as an error is no vote, and every session failing is an error naming each
one's reason. The case folder's plan.md and inspection_log.jsonl are those of the first session
voting for the decision (`details["shown"]`, 1-based; the first session that answered when none
decided), and so are the verdict's citations: they resolve in that session's transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge_runner.core import Decision, Usage, Verdict
from judge_runner.judges.agent.session import Session
from judge_runner.judges.annotators import tally


def folder(index: int) -> str:
    """The folder of session `index` (0-based) inside the case folder."""
    return f"session-{index + 1}"


def combine(outcomes: Sequence[tuple[Verdict, Session | None]], judge: str,
            duration_s: float) -> tuple[Verdict, Session | None]:
    """The case's verdict from each session's verdict and state, and the session whose plan
    and log the case folder shows (None when no session answered)."""
    verdicts = [verdict for verdict, _ in outcomes]
    answers = [v.error or "no verdict" if v.decision is Decision.ERROR else v for v in verdicts]
    vote = tally(answers, "sessions")
    details: dict[str, Any] = {
        "sessions": [{"dir": folder(n), "decision": v.decision.value, "error": v.error,
                      "confidence": v.confidence, "turns": v.details.get("turns", 0)}
                     for n, v in enumerate(verdicts)],
        **vote.details,
        "turns": sum(int(v.details.get("turns", 0)) for v in verdicts),
    }
    usage = sum((v.usage for v in verdicts), Usage())
    common: dict[str, Any] = {"case_id": verdicts[0].case_id, "judge": judge, "usage": usage,
                              "duration_s": round(duration_s, 3), "details": details}
    if vote.decision is Decision.ERROR:
        return Verdict(decision=Decision.ERROR, error=vote.rationale, **common), None
    shown = vote.chosen if vote.chosen is not None else next(
        n for n, a in enumerate(answers) if not isinstance(a, str))
    chosen = verdicts[shown]
    details |= {"shown": shown + 1, "sandbox": chosen.details.get("sandbox"),
                "evidence": chosen.details.get("evidence")}
    return Verdict(decision=vote.decision, rationale=vote.rationale,
                   citations=chosen.citations, unsupported=chosen.unsupported,
                   confidence=vote.confidence, **common), outcomes[shown][1]
