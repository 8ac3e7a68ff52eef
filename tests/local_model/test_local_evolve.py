"""One bounded evolution round with the local model as the optimizer and the rules judge on a
small gate: the model's real rewrite goes through candidate validation and, if valid, the gate,
and ends promoted or rejected with its reason recorded; nothing it writes can crash the loop or
touch the lineage unless it is promoted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from judge_runner.evolve.state import CandidateStatus, EvolveState
from judge_runner.models.recording import read_transcript
from judge_runner.skills.lineage import load_lineage
from tests.conftest import REPO
from tests.local_model.conftest import MODEL, LocalModel
from tests.local_model.test_local_model import cli

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

# The round's starting skill (scripts/bench_local_model.py starts from it too). The optimizer sees
# every file of the skill and both briefs: a short SKILL.md and small briefs keep its prompt near
# 2k tokens; the cap bounds its answer (about a minute on 2 cores).
EVOLVE_SKILL = Path(__file__).parent / "evolve-skill"


def test_one_evolution_round_with_the_local_model_as_optimizer(
    local_model: LocalModel, example_dataset: Dataset, tmp_path: Path
) -> None:
    skills = tmp_path / "judgeskills"
    (skills / "v1").mkdir(parents=True)
    shutil.copy(EVOLVE_SKILL / "SKILL.md", skills / "v1" / "SKILL.md")
    shutil.copy(REPO / "judgeskills" / "v1" / "checks.toml", skills / "v1" / "checks.toml")
    ids = example_dataset.case_ids()
    (tmp_path / "dev.txt").write_text("\n".join(ids) + "\n")
    (tmp_path / "gate.txt").write_text("\n".join(ids[:6]) + "\n")
    run = tmp_path / "evolve"
    before = local_model.counters()
    out = cli("evolve", "--skill", str(skills / "v1"), "--dev", str(tmp_path / "dev.txt"),
              "--gate", str(tmp_path / "gate.txt"), "--dataset", str(example_dataset.root),
              "--judge", "rules", "--optimizer", "model", "--optimizer-model",
              f"anthropic:{MODEL}", "--base-url", local_model.base_url, "--rounds", "1",
              "--max-candidates", "1", "--sample-size", str(len(ids)), "--sandbox", "none",
              "--optimizer-max-tokens", "600", "--brief-tokens", "400", "--concurrency", "2",
              "--run-dir", str(run)).stdout
    after = local_model.counters()

    state = EvolveState.load(run)
    assert state is not None and state.stop_reason == "all rounds done"
    (cand,) = state.candidates
    ended = {CandidateStatus.INVALID, CandidateStatus.REJECTED, CandidateStatus.PROMOTED}
    assert cand.status in ended, cand
    # the model really answered, and what it answered is what the loop judged
    entries, problems = read_transcript(run / "optimizer" / "transcript.jsonl")
    assert not problems and len(entries) == 1 and entries[0].response is not None
    answer = entries[0].response
    assert answer.usage.output_tokens == \
        after["tokens_predicted_total"] - before["tokens_predicted_total"]
    # What holds for any answer the model can give: it arrived, so the candidate is never
    # "failed" (that is for a call with no answer); one that was written holds the SKILL.md of
    # the model's propose_skill call, and one that was not is invalid with a reason.
    assert cand.status is not CandidateStatus.FAILED, cand
    calls = [b for b in answer.content
             if b.get("type") == "tool_use" and b.get("name") == "propose_skill"]
    if cand.skill_dir is not None:
        written = (Path(str(cand.skill_dir)) / "SKILL.md").read_text()
        assert calls and written == calls[0]["input"]["skill_md"]
    else:
        assert cand.status is CandidateStatus.INVALID and cand.reason, cand
    # a candidate that reached the gate was judged on it; one that did not never was
    assert (cand.gate is not None) == (cand.status in (CandidateStatus.REJECTED,
                                                         CandidateStatus.PROMOTED))
    versions = sorted(p.name for p in skills.iterdir() if p.is_dir())
    if cand.status is CandidateStatus.PROMOTED:
        assert versions == ["v1", "v2"] and load_lineage(skills).get("v2") is not None
    else:
        assert cand.reason, cand  # the recorded reason, shown in the report
        assert cand.reason.splitlines()[0][:60] in out
        assert versions == ["v1"] and load_lineage(skills).get("v2") is None
        assert state.incumbent_dir == str(skills / "v1")
