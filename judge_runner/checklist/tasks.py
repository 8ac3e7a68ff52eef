"""Reading the two inputs a checklist may be made from: a Harbor task's instruction and verifier.

Only `instruction.md` and the files under `tests/` are read. Solutions (`solution/`), the
environment and anything else in the task folder are never opened here, so nothing derived from
them can reach the synthesizer.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from judge_runner.core import INSTRUCTION_FILE
from judge_runner.text import sha256_text

TESTS_DIR = "tests"
# Verifier files larger than this are cut (head kept) before they are shown to a model.
MAX_VERIFIER_FILE_CHARS = 60_000


class TaskSourceError(ValueError):
    """The task folder lacks an instruction or a verifier, or a verifier file cannot be read."""


@dataclass(frozen=True)
class TaskSource:
    name: str
    instruction: str
    verifier_files: dict[str, str]  # path relative to tests/ -> text
    test_names: tuple[str, ...]  # "file.py::Class::test" / "file.py::test", sorted

    @property
    def instruction_sha256(self) -> str:
        return sha256_text(self.instruction)

    def verifier_hashes(self) -> dict[str, str]:
        return {name: sha256_text(text) for name, text in sorted(self.verifier_files.items())}


def load_task(task_dir: Path) -> TaskSource:
    """Read a task folder. Raises TaskSourceError naming the folder when a part is missing."""
    instruction_path = task_dir / INSTRUCTION_FILE
    if not instruction_path.is_file():
        raise TaskSourceError(f"{task_dir}: no {INSTRUCTION_FILE}")
    tests_dir = task_dir / TESTS_DIR
    if not tests_dir.is_dir():
        raise TaskSourceError(f"{task_dir}: no {TESTS_DIR}/ folder (the verifier is required)")
    files: dict[str, str] = {}
    for path in sorted(p for p in tests_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(tests_dir).as_posix()
        try:
            files[rel] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary fixtures carry no test names and are not shown to a model
        except OSError as exc:
            raise TaskSourceError(f"{path}: unreadable verifier file: {exc}") from exc
    if not any(name.endswith(".py") for name in files):
        raise TaskSourceError(f"{tests_dir}: no Python verifier file")
    names: list[str] = []
    for rel, text in files.items():
        if rel.endswith(".py"):
            names.extend(discover_tests(rel, text))
    return TaskSource(
        name=task_dir.resolve().name,
        instruction=instruction_path.read_text(encoding="utf-8"),
        verifier_files=files,
        test_names=tuple(sorted(set(names))),
    )


def discover_tests(file_name: str, source: str) -> list[str]:
    """pytest-style test ids in one file: top-level `test_*` functions and `test_*` methods of
    `Test*` classes. A file that does not parse yields no names (its tests cannot be cited)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    base = Path(file_name).name
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            found.append(f"{base}::{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for member in node.body:
                if isinstance(
                    member, ast.FunctionDef | ast.AsyncFunctionDef
                ) and member.name.startswith("test"):
                    found.append(f"{base}::{node.name}::{member.name}")
    return found


def resolve_test_ref(ref: str, test_names: tuple[str, ...]) -> str | None:
    """The unique test id `ref` names, or None. A ref may drop leading parts
    (`TestX::test_y`, `test_y`) as long as exactly one test matches."""
    ref = ref.strip()
    if ref in test_names:
        return ref
    matches = [n for n in test_names if n.endswith("::" + ref)]
    return matches[0] if len(matches) == 1 else None
