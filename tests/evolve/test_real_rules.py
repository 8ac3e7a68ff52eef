"""The whole loop on the real shared trials with the rules judge and its optimizer: no model."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from judge_runner.cli import app
from judge_runner.evolve.state import EvolveState

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_rules_evolution_on_real_dev_data(real_dataset: Path, tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    # The shared sample is small (5 tasks hold both outcomes): keep one task for eval and
    # draw a 4-case gate so the rest of dev remains to sample from.
    invoke("bench", "build", str(real_dataset), "--out", str(bench), "--eval-size", "2")
    invoke("bench", "gate", "--dev", str(bench), "--size", "4", "--fail", "2", "--pass", "2")
    skills = tmp_path / "judgeskills"
    skills.mkdir()
    (skills / "v1").symlink_to(REPO / "judgeskills" / "v1", target_is_directory=True)
    run_dir = tmp_path / "evolve"
    # The bench dir alone names the dev split, the gate, the eval split and the dataset.
    invoke(
        "evolve",
        "--skill",
        str(skills / "v1"),
        "--dev",
        str(bench),
        "--run-dir",
        str(run_dir),
        "--judge",
        "rules",
        "--sandbox",
        "none",
        "--rounds",
        "2",
        "--sample-size",
        "4",
        "--seed",
        "1",
    )

    state = EvolveState.load(run_dir)
    assert state is not None and state.stop_reason == "all rounds done"
    assert state.spend.total_calls == 0 and state.spend.total_usd == 0.0
    gated = [c for c in state.candidates if c.gate is not None]
    assert gated, "the rules optimizer proposed nothing that reached the gate"

    report = invoke("evolve", "report", str(run_dir))
    for cand in gated:
        assert cand.gate is not None
        row = next(line for line in report.splitlines() if line.startswith(f"| {cand.id} |"))
        assert f"{100 * cand.gate.gate_score:.1f}%" in row
    assert re.search(r"\| v1 \| \d+\.\d% \| \d+\.\d% \| \d+\.\d% \|", report)
