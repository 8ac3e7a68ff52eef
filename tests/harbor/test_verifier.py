"""The in-container verifier: reward only for a decided verdict, details always."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_runner.harbor.verifier import main, verify


def _setup(tmp_path: Path, verdict: str | None, label: str = "pass") -> tuple[Path, Path, Path]:
    verdict_path = tmp_path / "agent" / "verdict.json"
    verdict_path.parent.mkdir()
    if verdict is not None:
        verdict_path.write_text(verdict)
    label_path = tmp_path / "label.json"
    label_path.write_text(json.dumps({"case_id": "c1", "label": label}))
    return verdict_path, label_path, tmp_path / "verifier"


@pytest.mark.parametrize(("decision", "label", "reward"),
                         [("pass", "pass", 1.0), ("fail", "pass", 0.0),
                          ("fail", "fail", 1.0), ("pass", "fail", 0.0)])
def test_decided_verdict_is_graded_against_the_label(
    tmp_path: Path, decision: str, label: str, reward: float
) -> None:
    paths = _setup(tmp_path, json.dumps({"decision": decision, "rationale": "r"}), label)
    details = verify(*paths)
    assert json.loads((paths[2] / "reward.json").read_text()) == {"reward": reward}
    assert details == {"case_id": "c1", "label": label, "decision": decision,
                       "correct": reward == 1.0, "error": None}
    assert json.loads((paths[2] / "details.json").read_text()) == details


@pytest.mark.parametrize(("verdict", "reason"), [
    (None, "missing"),
    ("{not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"rationale": "no decision"}', "not pass/fail"),
    ('{"decision": "error", "error": "budget exhausted"}', "budget exhausted"),
    ('{"decision": "abstain"}', "not pass/fail"),
    ('{"decision": "PASS"}', "not pass/fail"),
])
def test_unusable_verdict_writes_no_reward(tmp_path: Path, verdict: str | None,
                                           reason: str) -> None:
    paths = _setup(tmp_path, verdict)
    details = verify(*paths)
    assert not (paths[2] / "reward.json").exists()
    assert details["decision"] is None and details["correct"] is None
    assert reason in str(details["error"])


def test_a_symlinked_verdict_is_not_followed(tmp_path: Path) -> None:
    verdict_path, label_path, out = _setup(tmp_path, None)
    real = tmp_path / "elsewhere.json"
    real.write_text('{"decision": "pass"}')
    verdict_path.symlink_to(real)
    assert verify(verdict_path, label_path, out)["error"] is not None
    assert not (out / "reward.json").exists()


def test_a_planted_reward_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    verdict_path, label_path, out = _setup(tmp_path, '{"decision": "fail"}')
    out.mkdir()
    target = tmp_path / "victim.txt"
    target.write_text("untouched")
    (out / "reward.json").symlink_to(target)
    verify(verdict_path, label_path, out)
    assert target.read_text() == "untouched"
    assert json.loads((out / "reward.json").read_text()) == {"reward": 0.0}


def test_a_broken_label_file_raises_and_writes_nothing(tmp_path: Path) -> None:
    verdict_path, label_path, out = _setup(tmp_path, '{"decision": "pass"}', label="maybe")
    with pytest.raises(ValueError, match="label must be pass or fail"):
        verify(verdict_path, label_path, out)
    assert not (out / "reward.json").exists()


def test_main_prints_details_and_checks_its_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _setup(tmp_path, '{"decision": "pass"}')
    assert main(["check", *map(str, paths)]) == 0
    assert json.loads(capsys.readouterr().out)["correct"] is True
    assert main(["check"]) == 2
