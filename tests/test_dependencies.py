"""Every third-party module the code imports comes from a dependency pyproject.toml declares,
not from one that merely arrives with another (an SDK's HTTP library, a template engine's
helpers): the package may use its runtime dependencies and the Harbor and Inspect extras, tests
and scripts also the dev extra."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.conftest import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# the repository's own top-level modules (scripts import their helpers by file name)
OWN = {"judge_runner", "tests", *(p.stem for p in (REPO / "scripts").glob("*.py"))}


def _name(requirement: str) -> str:
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert found is not None, requirement
    return re.sub(r"[-_.]+", "-", found.group(0)).lower()


def _declared(*extras: str) -> set[str]:
    groups = [PROJECT["dependencies"], *(PROJECT["optional-dependencies"][e] for e in extras)]
    return {_name(r) for group in groups for r in group}


def _imported(*folders: str) -> dict[str, set[str]]:
    """Top-level third-party module -> the files importing it."""
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in OWN:
                        found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def _undeclared(imported: dict[str, set[str]], declared: set[str]) -> dict[str, list[str]]:
    """Imported module -> importing files, for each module no declared distribution provides."""
    providers = packages_distributions()
    return {module: sorted(files) for module, files in sorted(imported.items())
            if not declared & {_name(d) for d in providers.get(module, [])}}


def test_the_package_imports_only_its_runtime_dependencies() -> None:
    assert _undeclared(_imported("judge_runner"), _declared("harbor", "inspect")) == {}


def test_tests_and_scripts_import_only_declared_dependencies() -> None:
    assert _undeclared(_imported("tests", "scripts"), _declared("harbor", "inspect", "dev")) == {}


def test_an_undeclared_import_is_found() -> None:
    # httpx arrives with openai, so it is installed, but nothing here may import it directly
    imported = {"httpx": {"example.py"}, "pydantic": {"example.py"}}
    assert _undeclared(imported, _declared()) == {"httpx": ["example.py"]}
