"""What a case id may be: the name of one folder directly under ``cases/``.

Ids come from the importer (`<task slug>__<10 hex>`) or from hand-written split files and
command lines; those are data, so every id taken from outside is checked before it is joined
to a path. A valid id is one path component that cannot climb or hide: it starts with a
letter or digit and holds only letters, digits, ``.``, ``_`` and ``-`` (so no ``/``, ``\\``,
``..`` component, leading dot, space or control character), at most 200 characters.
"""

from __future__ import annotations

import re

MAX_CASE_ID_CHARS = 200
_CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def case_id_problem(text: str) -> str | None:
    """Why `text` is not a valid case id, or None when it is one."""
    if not text:
        return "empty case id"
    if "/" in text or "\\" in text:
        return "a path, not a case id (split files hold case ids only)"
    if len(text) > MAX_CASE_ID_CHARS:
        return f"longer than {MAX_CASE_ID_CHARS} characters"
    if not _CASE_ID.fullmatch(text):
        return ("not a case id (letters, digits, '.', '_' and '-' only, starting with a "
                "letter or digit)")
    return None


def is_case_id(text: str) -> bool:
    return case_id_problem(text) is None
