"""`judge-runner evolve report DIR`: versions, every candidate's gate figures, promotions, spend."""

from __future__ import annotations

from pathlib import Path

from judge_runner.core import Figures
from judge_runner.evolve.loop import CANDIDATES_DIR
from judge_runner.evolve.state import EvolveState
from judge_runner.skills import load_lineage

REPORT_FILE = "evolve_report.md"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _gate_cells(g: Figures | None) -> str:
    if g is None:
        return "— | — | — | —"
    return f"{_pct(g.accuracy)} | {_pct(g.balanced_accuracy)} | {_pct(g.gate_score)} | {g.n_error}"


def render_report(run_dir: Path, state: EvolveState) -> str:
    cfg = state.config
    skills_root = Path(cfg.skill).parent
    lineage = load_lineage(skills_root)
    start = Path(cfg.skill).name
    lines = [
        f"# Evolution report: {run_dir}",
        "",
        f"judge `{cfg.judge}` (model {cfg.judge_model or '—'}), optimizer `{cfg.optimizer}` "
        f"(model {cfg.optimizer_model or '—'}), seed {cfg.seed}, {len(cfg.dev_ids)} dev cases, "
        f"{len(cfg.gate_ids)} gate cases, {len(state.rounds)}/{cfg.rounds} rounds.",
        f"Stopped: {state.stop_reason or 'still running or interrupted'}.",
        "",
        "## Versions",
        "",
        "| version | gate acc | gate BalAcc | gate G | eval acc |",
        "|---|---|---|---|---|",
    ]
    versions = [(start, state.initial_gate)] + [
        (Path(c.promoted_as).name, c.gate) for c in state.promotions() if c.promoted_as
    ]
    for name, gate in versions:
        entry = lineage.get(name)
        eval_acc = entry.eval.accuracy if entry and entry.eval else None
        lines.append(
            f"| {name} | {_pct(gate.accuracy if gate else None)} | "
            f"{_pct(gate.balanced_accuracy if gate else None)} | "
            f"{_pct(gate.gate_score if gate else None)} | {_pct(eval_acc)} |"
        )
    lines += [
        "",
        "## Candidates",
        "",
        "| candidate | strategy | status | gate acc | gate BalAcc | gate G | gate errors "
        "| reason |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in state.candidates:
        reason = (c.reason or "").replace("|", "\\|")[:160]
        lines.append(
            f"| {c.id} | {c.strategy.value} | {c.status.value} | {_gate_cells(c.gate)} | {reason} |"
        )
    for c in state.promotions():
        diff_path = run_dir / CANDIDATES_DIR / f"{c.id}.diff"
        lines += [
            "",
            f"## Promotion {c.id} → {Path(c.promoted_as or '').name}",
            "",
            f"Rationale: {c.rationale or '(none given)'}",
            "",
            f"Paired McNemar p on the gate: {c.paired_p if c.paired_p is not None else '—'}",
            "",
            "```diff",
            diff_path.read_text(encoding="utf-8") if diff_path.is_file() else "",
            "```",
        ]
    s = state.spend
    lines += [
        "",
        "## Spend",
        "",
        f"- judge: ${s.judge_usd:.4f} over {s.judge_calls} model calls",
        f"- optimizer: ${s.optimizer_usd:.4f} over {s.optimizer_calls} model calls",
        f"- total: ${s.total_usd:.4f}",
    ]
    return "\n".join(lines) + "\n"
