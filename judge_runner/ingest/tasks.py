"""Task folders (Harbor/SkillsBench layout) and the category → SkillTV domain mapping.

A task folder holds ``instruction.md``, ``task.toml`` (``[metadata] category``) and optionally
``environment/skills/<skill>/``. The domain comes from ``bench/domains.toml``: a per-task override
wins, then the category table (matched case-insensitively). A category missing from both is
*unmapped*: the case gets no domain and the import report says so; nothing is guessed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from judge_runner.cases.models import Domain

DEFAULT_DOMAINS_FILE = Path(__file__).resolve().parents[2] / "bench" / "domains.toml"


class TaskError(Exception):
    """A task folder that is missing or unreadable; the message names the path."""


@dataclass(frozen=True)
class TaskInfo:
    name: str
    root: Path
    instruction: str
    category: str | None

    @property
    def skills_root(self) -> Path:
        return self.root / "environment" / "skills"


@dataclass(frozen=True)
class DomainMap:
    by_category: dict[str, Domain]
    by_task: dict[str, Domain]

    @classmethod
    def load(cls, path: Path) -> DomainMap:
        """Read a domains.toml. Raises ValueError naming the entry when a domain is not one of
        the eleven SkillTV domains, OSError when the file cannot be read."""
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return cls(by_category=_table(data, "categories", path, lower=True),
                   by_task=_table(data, "tasks", path, lower=False))

    def domain_for(self, task: str, category: str | None) -> Domain | None:
        if task in self.by_task:
            return self.by_task[task]
        if category is None:
            return None
        return self.by_category.get(category.strip().lower())


def _table(data: dict[str, object], name: str, path: Path, lower: bool) -> dict[str, Domain]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [{name}] must be a table")
    out: dict[str, Domain] = {}
    for key, value in table.items():
        try:
            out[key.lower() if lower else key] = Domain(value)
        except ValueError:
            allowed = ", ".join(d.value for d in Domain)
            raise ValueError(f"{path}: [{name}] {key!r} = {value!r} is not a domain ({allowed})") \
                from None
    return out


def find_task(task: str, task_dirs: list[Path]) -> TaskInfo:
    """Locate `<dir>/<task>/instruction.md` in the first task dir holding it."""
    for base in task_dirs:
        root = base / task
        if (root / "instruction.md").is_file():
            return _read_task(task, root)
    searched = ", ".join(str(d) for d in task_dirs) or "(no --tasks given)"
    raise TaskError(f"task folder {task!r} with instruction.md not found in {searched}")


def _read_task(name: str, root: Path) -> TaskInfo:
    try:
        instruction = (root / "instruction.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskError(f"{root / 'instruction.md'}: unreadable ({exc})") from exc
    category = None
    toml_path = root / "task.toml"
    if toml_path.is_file():
        try:
            meta = tomllib.loads(toml_path.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise TaskError(f"{toml_path}: unreadable ({exc})") from exc
        value = meta.get("category") if isinstance(meta, dict) else None
        category = value if isinstance(value, str) and value.strip() else None
    return TaskInfo(name=name, root=root, instruction=instruction, category=category)
