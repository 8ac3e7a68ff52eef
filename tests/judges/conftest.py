"""Judge test fixtures, and the suite-wide guard that no label or verifier evidence reaches a
model: at the end of the session, every judge request any fake Messages API server received is
scanned for the label records and evidence texts of every dataset the judge tests built or
imported (each registers its secrets when it is made). The guard holds however the suite is
split: the check that it is not vacuous looks only at requests sent during judge tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from tests import casebuilder
from tests.fakeapi import ALL_REQUESTS, ReceivedRequest

# Every request a judge sends offers one of these tools. Other stages (the evolution optimizer)
# may legitimately send dev-only evidence to a model; judges never may.
JUDGE_TOOLS = frozenset({"submit_verdict", "submit_rubric", "submit_grades"})


def is_judge_request(request: ReceivedRequest) -> bool:
    return bool({t.get("name") for t in request.body.get("tools", [])} & JUDGE_TOOLS)


def judge_requests() -> list[ReceivedRequest]:
    return [r for r in list(ALL_REQUESTS) if is_judge_request(r)]


# Requests received while a test of this folder ran (other folders' tests may share the session).
SENT_BY_JUDGE_TESTS: list[ReceivedRequest] = []


@pytest.fixture(autouse=True)
def _note_requests_of_judge_tests() -> Iterator[None]:
    before = {id(r) for r in ALL_REQUESTS}
    yield
    SENT_BY_JUDGE_TESTS.extend(r for r in ALL_REQUESTS if id(r) not in before)


def leaked(secrets: list[str], requests: list[ReceivedRequest] | None = None
           ) -> list[tuple[str, str]]:
    """(secret, request path) for every secret found verbatim in a request body."""
    hits = []
    for request in judge_requests() if requests is None else requests:
        text = request.text
        hits += [(s[:80], request.path) for s in secrets if s in text]
    return hits


@pytest.fixture(scope="session", autouse=True)
def no_label_or_evidence_reaches_a_model() -> Iterator[None]:
    yield
    sent = [r for r in SENT_BY_JUDGE_TESTS if is_judge_request(r)]
    assert not sent or casebuilder.SECRETS, "judge tests sent judge requests but no secrets known"
    hits = leaked(list(casebuilder.SECRETS))
    assert not hits, f"label or evidence text reached a model: {hits[:5]}"


@pytest.fixture(scope="session")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The bundled example trials imported into a dataset (labels and evidence registered)."""
    return casebuilder.imported_examples(tmp_path_factory.mktemp("examples") / "dataset")


@pytest.fixture
def dataset(tmp_path: Path) -> Dataset:
    """Two cases: c-fail wrote total 41 (label fail), c-pass wrote 42 (label pass)."""
    return casebuilder.summing_dataset(tmp_path / "data", {"c-fail": 41, "c-pass": 42})
