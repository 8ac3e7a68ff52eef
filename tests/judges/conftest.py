"""Judge test fixtures, and the suite-wide guard that no label or verifier evidence reaches a
model: at the end of the session, every request any fake Messages API server received is scanned
for the label records and evidence texts of every dataset the tests built or bundled."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from tests.conftest import EXAMPLES
from tests.fakeapi import ALL_REQUESTS
from tests.judges import casekit


def secrets_of(dataset_root: Path) -> list[str]:
    """Label lines and evidence lines (≥ 16 characters) of a dataset on disk."""
    found: list[str] = []
    labels = dataset_root / "labels.jsonl"
    if labels.is_file():
        found += [ln.strip() for ln in labels.read_text().splitlines() if ln.strip()]
    evidence = dataset_root / "evidence"
    if evidence.is_dir():
        for path in sorted(p for p in evidence.rglob("*") if p.is_file()):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 16]
    return found


def leaked(secrets: list[str]) -> list[tuple[str, str]]:
    """(secret, request path) for every secret found verbatim in any request body so far."""
    hits = []
    for request in list(ALL_REQUESTS):
        text = request.text
        hits += [(s[:80], request.path) for s in secrets if s in text]
    return hits


@pytest.fixture(scope="session", autouse=True)
def no_label_or_evidence_reaches_a_model() -> Iterator[None]:
    yield
    secrets = list(casekit.SECRETS)
    if EXAMPLES.is_dir():
        secrets += secrets_of(EXAMPLES)
    hits = leaked(secrets)
    assert not hits, f"label or evidence text reached a model: {hits[:5]}"


@pytest.fixture
def dataset(tmp_path: Path) -> Dataset:
    """Two cases: c-fail wrote total 41 (label fail), c-pass wrote 42 (label pass)."""
    built = casekit.build_dataset(tmp_path / "data", {"c-fail": 41, "c-pass": 42})
    casekit.SECRETS.extend(secrets_of(built.root))
    return built
