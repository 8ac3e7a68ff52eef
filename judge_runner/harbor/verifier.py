"""The verifier of an exported task: compares the judge's verdict file with the label.

Copied into every task as `tests/check_verdict.py` and run by `tests/test.sh` as root inside the
task container, after the judge has finished (Harbor uploads tests/ only then). It therefore uses
the standard library only and runs on the container's Python 3.

    reward.json   {"reward": 1.0} when the decision equals the label, {"reward": 0.0} otherwise
    details.json  case id, label, decision, correct, error — always written

A verdict file that is missing, unreadable, not JSON, without a `decision` of pass/fail (an
`error` or `abstain` decision included) writes NO reward: Harbor then records the trial as an
error (RewardFileNotFoundError), never as a pass or a fail. The judge cannot write the reward:
its commands run as a non-root user, Harbor deletes stale reward files before verifying, and
this script kills every process left by the judge's user before it reads anything.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

DECIDED = ("pass", "fail")
MAX_VERDICT_BYTES = 4_000_000


def read_decision(verdict_path: Path) -> tuple[str | None, str | None]:
    """(decision, None) for a usable verdict file, (None, reason) otherwise."""
    try:
        if verdict_path.is_symlink() or not verdict_path.is_file():
            return None, f"verdict file {verdict_path} is missing (or not a regular file)"
        raw = verdict_path.read_bytes()
    except OSError as exc:
        return None, f"verdict file {verdict_path} unreadable: {exc}"
    if len(raw) > MAX_VERDICT_BYTES:
        return None, f"verdict file {verdict_path} is larger than {MAX_VERDICT_BYTES} bytes"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"verdict file {verdict_path} is not JSON: {exc}"
    if not isinstance(data, dict):
        return None, f"verdict file {verdict_path} must hold a JSON object"
    decision = data.get("decision")
    if decision not in DECIDED:
        reason = data.get("error") if decision == "error" else None
        return None, (f"verdict decision is {decision!r}, not pass/fail"
                      + (f" (judge error: {reason})" if reason else ""))
    return str(decision), None


def verify(verdict_path: Path, label_path: Path, out_dir: Path) -> dict[str, Any]:
    """Write details.json (always) and reward.json (only for a decided verdict) into out_dir.

    A missing or malformed label file is a broken task: it raises, and no reward is written.
    """
    label_data = json.loads(label_path.read_text(encoding="utf-8"))
    case_id, label = str(label_data["case_id"]), str(label_data["label"])
    if label not in DECIDED:
        raise ValueError(f"{label_path}: label must be pass or fail, got {label!r}")
    decision, error = read_decision(verdict_path)
    correct = None if decision is None else decision == label
    details: dict[str, Any] = {"case_id": case_id, "label": label, "decision": decision,
                               "correct": correct, "error": error}
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_json(out_dir / "details.json", details)
    if correct is not None:
        _write_json(out_dir / "reward.json", {"reward": 1.0 if correct else 0.0})
    return details


def _write_json(path: Path, data: dict[str, Any]) -> None:
    # Write beside and rename: a reader never sees half a file, and a planted symlink at `path`
    # is replaced rather than followed.
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, sort_keys=True) + "\n")
    os.replace(tmp, path)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print("usage: check_verdict.py VERDICT_JSON LABEL_JSON OUT_DIR", file=sys.stderr)
        return 2
    details = verify(Path(argv[1]), Path(argv[2]), Path(argv[3]))
    print(json.dumps(details, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
