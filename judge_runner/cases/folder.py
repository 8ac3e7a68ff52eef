"""Recognising a case folder: `<dataset>/cases/<id>/` holding a valid `case.json`.

Tools that take a folder from the command line and show it to a judge (`sandbox exec`) accept
only this, so a dataset root, `evidence/<id>` (verifier output) or any other folder is never
mounted by mistake.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from judge_runner.cases.dataset import CasePackage
from judge_runner.cases.ids import case_id_problem
from judge_runner.cases.models import CaseMeta
from judge_runner.core import CASE_FILE, CASES_DIR
from judge_runner.validation import in_one_line


class NotACaseFolderError(ValueError):
    """The folder is not `<dataset>/cases/<id>/` with a valid case.json; says which rule failed."""


def case_folder(path: Path) -> CasePackage:
    """The case package at `path` (symlinks resolved), or NotACaseFolderError saying why not:
    not a directory, not directly inside a `cases/` folder, a name that is not a case id, no
    case.json, a case.json that does not parse, or one whose `id` differs from the folder."""
    folder = path.resolve()

    def refuse(reason: str) -> NotACaseFolderError:
        return NotACaseFolderError(f"{path} is not a case folder: {reason}; give "
                                   f"DATASET/{CASES_DIR}/<id>")

    if not folder.is_dir():
        raise refuse("no such directory")
    if folder.parent.name != CASES_DIR:
        raise refuse(f"it is not inside a dataset's {CASES_DIR}/ folder")
    if problem := case_id_problem(folder.name):
        raise refuse(f"its name {folder.name!r} is {problem}")
    meta_file = folder / CASE_FILE
    if meta_file.is_symlink() or not meta_file.is_file():
        raise refuse("it holds no case.json")
    try:
        meta = CaseMeta.model_validate_json(meta_file.read_bytes())
    except (OSError, ValidationError) as exc:
        raise refuse(f"its case.json is not valid ({in_one_line(exc, 'file')})") from exc
    if meta.id != folder.name:
        raise refuse(f"its case.json is for case {meta.id!r}")
    return CasePackage(folder)
