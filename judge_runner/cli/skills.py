"""`judge-runner skills list|show|diff`: inspect JudgeSkill versions and their lineage.

A skill's files are text anyone may have written (an evolved version is a model's rewrite), so
what they hold is printed with its control characters escaped (`support.echo`), never raw."""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path
from typing import Annotated

import typer

from judge_runner.cli.support import echo
from judge_runner.skills.lineage import check_lineage, load_lineage, version_dirs
from judge_runner.skills.model import SkillError, hash_directory, load_skill

DEFAULT_ROOT = Path("judgeskills")

RootOption = Annotated[
    Path, typer.Option("--root", help="Directory holding the JudgeSkill versions and lineage.json.")
]


def _resolve(root: Path, version: str) -> Path:
    """A version name under `root`, or a path to a skill directory."""
    candidate = root / version
    return candidate if candidate.is_dir() else Path(version)


def skills_list(root: RootOption = DEFAULT_ROOT) -> None:
    """List JudgeSkill versions with parent, origin, hash and gate/eval figures."""
    try:
        lineage = load_lineage(root)
    except SkillError as exc:
        raise typer.BadParameter(str(exc)) from None
    header = ("version", "parent", "origin", "hash", "gate G", "eval acc")
    echo("{:<10} {:<8} {:<12} {:<12} {:>7} {:>8}".format(*header))
    for directory in version_dirs(root):
        entry = lineage.get(directory.name)
        gate = entry.gate.gate_score if entry and entry.gate else None
        acc = entry.eval.accuracy if entry and entry.eval else None
        echo(
            f"{directory.name:<10} {(entry.parent if entry else None) or '-':<8} "
            f"{entry.origin.value if entry else '?':<12} {hash_directory(directory)[:12]:<12} "
            f"{_fmt(gate):>7} {_fmt(acc):>8}"
        )
    for problem in check_lineage(root, lineage):
        echo(f"warning: {problem}", err=True)


def skills_show(
    version: Annotated[str, typer.Argument(help="Version name (e.g. v1) or skill directory.")],
    root: RootOption = DEFAULT_ROOT,
    full: Annotated[bool, typer.Option("--full", help="Print SKILL.md and references.")] = False,
) -> None:
    """Show one version: front matter, content hash, references, lineage."""
    path = _resolve(root, version)
    try:
        skill = load_skill(path)
        lineage = load_lineage(root)
    except SkillError as exc:
        raise typer.BadParameter(str(exc)) from None
    echo(f"name:        {skill.name}")
    echo(f"version:     {skill.version}")
    echo(f"description: {skill.description}")
    echo(f"path:        {skill.path}")
    echo(f"hash:        {skill.content_hash}")
    echo(f"ancestry:    {' <- '.join(lineage.ancestry(path.name)) or '-'}")
    entry = lineage.get(path.name)
    if entry is not None:
        echo(f"origin:      {entry.origin.value}: {entry.how}")
        for label, figures in (("gate", entry.gate), ("eval", entry.eval)):
            if figures is not None:
                echo(f"{label}:        {figures.model_dump_json(exclude_none=True)}")
    echo("references:")
    for ref in skill.references:
        echo(f"  {ref.name} ({len(ref.text)} chars)")
    if full:
        echo("")
        echo(skill.skill_md)
        for ref in skill.references:
            echo(f"\n===== {ref.name} =====\n{ref.text}")


def skills_diff(
    old: Annotated[str, typer.Argument(help="Older version or directory.")],
    new: Annotated[str, typer.Argument(help="Newer version or directory.")],
    root: RootOption = DEFAULT_ROOT,
) -> None:
    """Unified diff of every text file between two versions (exit 1 when they differ)."""
    old_dir, new_dir = _resolve(root, old), _resolve(root, new)
    for directory in (old_dir, new_dir):
        if not directory.is_dir():
            raise typer.BadParameter(f"{directory}: not a JudgeSkill directory")
    names = sorted(
        {p.relative_to(old_dir).as_posix() for p in old_dir.rglob("*") if p.is_file()}
        | {p.relative_to(new_dir).as_posix() for p in new_dir.rglob("*") if p.is_file()}
    )
    differs = False
    for name in names:
        a, b = _lines(old_dir / name), _lines(new_dir / name)
        diff = list(difflib.unified_diff(a, b, f"{old}/{name}", f"{new}/{name}"))
        if diff:
            differs = True
            echo("".join(diff), nl=False)
    if differs:
        raise typer.Exit(1)


def _lines(path: Path) -> list[str]:
    if not path.is_file():
        return []
    try:
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return [f"(binary file, sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:12]})\n"]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="JudgeSkill versions: list, show, diff.", no_args_is_help=True)
    group.command("list")(skills_list)
    group.command("show")(skills_show)
    group.command("diff")(skills_diff)
    app.add_typer(group, name="skills")
