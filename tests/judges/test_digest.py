from __future__ import annotations

from pathlib import Path

import pytest

from judge_runner.cases import estimate_tokens
from judge_runner.judges.digest import render_digest
from tests import casebuilder


def test_whole_case_when_it_fits(tmp_path: Path) -> None:
    case = casebuilder.summing_dataset(tmp_path, {"c": 41}).case("c")
    text, selection = render_digest(case, 100_000)
    assert selection.fits_whole and not selection.omitted_steps
    assert selection.step_chars is None
    for needle in ("Sum the numbers", "[3] tool_call Write", '{"total": 41}',
                   "termination: completed", "Done: total is 41.", "### Skill summing"):
        assert needle in text


def test_policy_levels_cut_with_markers_and_record_them(tmp_path: Path) -> None:
    case = casebuilder.summing_dataset(tmp_path, {"c": 41}, filler_steps=50).case("c")
    full, _ = render_digest(case, 10**9)
    budget = estimate_tokens(full) // 2
    text, selection = render_digest(case, budget)
    assert selection.prompt_tokens_est <= budget and not selection.over_budget
    assert selection.step_chars is not None
    assert "characters cut ...]" in text
    tight, sel2 = render_digest(case, 1500)
    assert sel2.omitted_steps and sel2.omitted_step_chars > 0
    # kept whatever the budget: instruction, the step that wrote the artifact, the final message
    for needle in ("Sum the numbers", "[3] tool_call Write", "Done: total is 41."):
        assert needle in tight
    omitted = {i for first, last in sel2.omitted_steps for i in range(first, last + 1)}
    for first, last in sel2.omitted_steps:
        assert f"[steps {first}-{last} left out:" in tight
    assert 3 not in omitted


def test_deterministic(tmp_path: Path) -> None:
    case = casebuilder.summing_dataset(tmp_path, {"c": 41}, filler_steps=20).case("c")
    assert render_digest(case, 2000) == render_digest(case, 2000)


@pytest.mark.shared
def test_real_trials_fit_tight_budgets_with_marked_cuts(real_data: Path, tmp_path: Path) -> None:
    from judge_runner.cases import Dataset
    from judge_runner.ingest import ImportOptions, import_trials

    import_trials([real_data / "trials"], tmp_path / "ds",
                  ImportOptions(task_dirs=[real_data / "tasks"]))
    cases = Dataset(tmp_path / "ds").cases()
    assert len(cases) >= 20
    for case in cases:
        text, selection = render_digest(case, 4000)
        assert not selection.over_budget, (case.id, selection)
        assert selection.prompt_tokens_est <= 4000
        assert case.instruction.strip() in text  # the instruction is never cut
        for first, last in selection.omitted_steps:
            assert f"[steps {first}-{last} left out:" in text
        # below what the protected steps need, the digest says so instead of cutting them
        _, squeezed = render_digest(case, 300)
        assert squeezed.over_budget and squeezed.prompt_tokens_est > 300
