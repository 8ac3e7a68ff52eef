"""The direction of imports inside judge_runner, read from the source (ast), never by importing.

The house has one order, from the bottom up (see docs/architecture.md):

- `core` and the foundation modules at the package root (`cancel`, `jsonl`, `text`, ...) import
  no stage; `core` imports only itself, the foundation modules import only each other.
- each stage imports `core`, the foundation modules and stages *below* it, and a stage only
  through its public face (`from judge_runner.cases import Dataset`, never
  `judge_runner.cases.dataset`); `core` likewise through `judge_runner.core`.
- `cli` is the top: it composes the stages and may import their modules directly (it loads them
  inside the commands so that `--help` stays fast); no stage imports `cli`.

A strict order means there is no cycle between packages. A new package must be placed in STAGES.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "judge_runner"

# Bottom to top, in the order data flows: cases are imported and normalized (ingest), judged by
# models in sandboxes with skills (judges, deciding by their calibration; the checklist judge and
# its partial-credit scores sit just above them), judged runs are scored (runs, whose metrics
# include the checklist scores), runs build the gate (splits), skills evolve through the gate
# (evolve), Harbor runs judges as trials, view renders runs and lineages, experiments run plans
# of many judges into runs and report them together, and cli composes it all.
STAGES = ("cases", "ingest", "models", "sandbox", "skills", "calibration", "judges", "checklist",
          "runs", "splits", "evolve", "harbor", "view", "experiments")
# Modules at the package root that belong to a stage (`python -m judge_runner` runs the CLI).
ROOT_MEMBERS = {"__main__": "cli"}
FOUNDATION = frozenset({"cancel", "closing", "files", "jsonl", "log", "templates", "text",
                        "untrusted", "validation"})


@dataclass(frozen=True)
class Import:
    source: str  # file, relative to the repository
    line: int
    target: str  # dotted module path, or module path + name for `from judge_runner import x`


def unit_of(parts: tuple[str, ...]) -> str:
    """The unit a module path (inside judge_runner) belongs to."""
    if not parts:
        return "root"
    head = parts[0]
    if len(parts) == 1:
        return ROOT_MEMBERS.get(head, head)
    return head


def module_parts(path: Path) -> tuple[str, ...]:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def imports_of(path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    source = str(path.relative_to(PACKAGE.parent))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(source, node.lineno, a.name) for a in node.names
                      if a.name.startswith("judge_runner")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "judge_runner":  # `from judge_runner import cancel`
                found += [Import(source, node.lineno, f"judge_runner.{a.name}")
                          for a in node.names]
            elif node.module.startswith("judge_runner."):
                found.append(Import(source, node.lineno, node.module))
    return found


def problem(importer: str, imp: Import) -> str | None:
    """Why `imp`, made by a module of unit `importer`, breaks the order; None when it keeps it."""
    parts = tuple(imp.target.split("."))[1:]
    target = unit_of(parts)
    if target == importer or parts == ("__version__",):
        return None
    if importer in FOUNDATION:
        return None if target in FOUNDATION else "a foundation module imports no stage"
    if importer == "core":
        return "core imports only itself"
    if target == "cli":
        return "only cli imports cli"
    if importer == "cli" or target in FOUNDATION:
        return None
    if importer not in STAGES:
        return f"{importer} is not placed in STAGES"
    if target == "core":
        return None if len(parts) == 1 else "core is imported through judge_runner.core"
    if target not in STAGES:
        return f"{target} is not placed in STAGES"
    if STAGES.index(target) > STAGES.index(importer):
        return f"{importer} is below {target} and must not import it"
    if len(parts) > 1:
        return f"{target} is imported through its face, judge_runner.{target}"
    return None


def all_problems() -> list[str]:
    out: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = unit_of(module_parts(path))
        for imp in imports_of(path):
            why = problem(importer, imp)
            if why:
                out.append(f"{imp.source}:{imp.line}: imports {imp.target}: {why}")
    return out


def test_every_package_is_placed() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {*STAGES, "core", "cli"}, "place the new package in STAGES"
    roots = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert roots <= FOUNDATION | set(ROOT_MEMBERS), "a root module must be placed"


def test_imports_follow_the_order() -> None:
    assert all_problems() == []


def test_the_rules_catch_what_they_forbid() -> None:
    """The checker itself: each kind of wrong import is reported."""
    def check(importer: str, target: str) -> str | None:
        return problem(importer, Import("x.py", 1, target))

    assert check("judges", "judge_runner.runs") is not None  # upward
    assert check("splits", "judge_runner.runs.records") is not None  # past the face
    assert check("runs", "judge_runner.cli.support") is not None  # into cli
    assert check("core", "judge_runner.cases") is not None
    assert check("runs", "judge_runner.core.metrics") is not None
    assert check("runs", "judge_runner.judges") is None
    assert check("runs", "judge_runner.core") is None
    assert check("cli", "judge_runner.runs.runner") is None
    assert check("judges", "judge_runner.judges.rules.spec") is None
    assert check("templates", "judge_runner.untrusted") is None  # foundation to foundation
    assert check("templates", "judge_runner.cases") is not None  # foundation to a stage
