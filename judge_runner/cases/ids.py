"""What a case id may be: the name of one folder directly under ``cases/``.

Ids come from the importer (`<task slug>__<10 hex>`, letters, digits, ``.``, ``_``, ``-``) or
from hand-written split files and command lines; those are data, so every id taken from outside
is checked before it is joined to a path. The rule is what keeps the join inside ``cases/``:
one path component — not empty, no ``/`` or ``\\``, not ``.`` or ``..``, no NUL or other
control character (a line break in a name would also forge a split file's lines), not
surrounded by spaces, at most 255 bytes (a file name's limit). Anything else a folder name may
hold (``case-<b>``, a space inside) is a valid id; whether the dataset has that case is a
separate check.
"""

from __future__ import annotations

import unicodedata

MAX_CASE_ID_BYTES = 255


def case_id_problem(text: str) -> str | None:
    """Why `text` is not a valid case id, or None when it is one."""
    if not text:
        return "empty case id"
    if "/" in text or "\\" in text:
        return "a path, not a case id"
    if text in (".", ".."):
        return "a relative path step, not a case id"
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        return "a control character in a case id"
    if text != text.strip():
        return "spaces around a case id"
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_CASE_ID_BYTES:
        return f"longer than {MAX_CASE_ID_BYTES} bytes"
    return None


def is_case_id(text: str) -> bool:
    return case_id_problem(text) is None
