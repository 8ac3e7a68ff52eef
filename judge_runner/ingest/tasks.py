"""Task folders (Harbor/SkillsBench layout) and the category → SkillTV domain mapping.

A task folder holds ``instruction.md``, ``task.toml`` (``[metadata] category``) and optionally
``environment/skills/<skill>/``. The domain comes from a domains map: the one bundled with the
package (``judge_runner/ingest/domains.toml``) unless the user passes their own file. A per-task
override wins, then the category table (matched case-insensitively). A category missing from both
is *unmapped*: the case gets no domain and the import report says so; nothing is guessed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from judge_runner.cases import Domain
from judge_runner.core import INSTRUCTION_FILE
from judge_runner.ingest.paths import plain_name

# Shipped as package data so an installed wheel finds it; read through importlib.resources.
BUNDLED_DOMAINS = "domains.toml"


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
    def load(cls, path: Path | None = None) -> DomainMap:
        """Read a domains.toml; `None` reads the bundled map. Raises ValueError naming the file
        and entry when the TOML is malformed or a domain is not one of the eleven SkillTV
        domains, OSError when the file cannot be read."""
        if path is None:
            bundled = resources.files("judge_runner.ingest").joinpath(BUNDLED_DOMAINS)
            text = bundled.read_text(encoding="utf-8")
            return cls.parse(text, f"bundled {BUNDLED_DOMAINS}")
        return cls.parse(path.read_text(encoding="utf-8"), str(path))

    @classmethod
    def parse(cls, text: str, source: str) -> DomainMap:
        """Parse domains.toml text; `source` names it in errors (ValueError)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{source}: not valid TOML ({exc})") from exc
        return cls(by_category=_table(data, "categories", source, lower=True),
                   by_task=_table(data, "tasks", source, lower=False))

    def domain_for(self, task: str, category: str | None) -> Domain | None:
        if task in self.by_task:
            return self.by_task[task]
        if category is None:
            return None
        return self.by_category.get(category.strip().lower())


def _table(data: dict[str, object], name: str, source: str, lower: bool) -> dict[str, Domain]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ValueError(f"{source}: [{name}] must be a table")
    out: dict[str, Domain] = {}
    for key, value in table.items():
        try:
            out[key.lower() if lower else key] = Domain(value)
        except ValueError:
            allowed = ", ".join(d.value for d in Domain)
            raise ValueError(f"{source}: [{name}] {key!r} = {value!r} is not a domain "
                             f"({allowed})") from None
    return out


def find_task(task: str, task_dirs: list[Path]) -> TaskInfo:
    """Locate `<dir>/<task>/instruction.md` in the first task dir holding it. A `task` that is
    not a plain folder name is refused (TaskError): it could name a folder outside them."""
    if not plain_name(task):
        raise TaskError(f"task name {task!r} is not a plain folder name; refusing to look it up")
    for base in task_dirs:
        root = base / task
        if (root / INSTRUCTION_FILE).is_file():
            return _read_task(task, root)
    searched = ", ".join(str(d) for d in task_dirs) or "(no --tasks given)"
    raise TaskError(f"task folder {task!r} with instruction.md not found in {searched}")


def _read_task(name: str, root: Path) -> TaskInfo:
    try:
        instruction = (root / INSTRUCTION_FILE).read_text(encoding="utf-8")
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
