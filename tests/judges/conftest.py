"""Judge test fixtures, and the suite-wide guard that no label or verifier evidence reaches a
model: at the end of the session, every request any fake Messages API server received is scanned
for the label records and evidence texts of every dataset the tests built or bundled."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_runner.cases import Dataset
from tests.conftest import EXAMPLES, require
from tests.fakeapi import ALL_REQUESTS, ReceivedRequest
from tests.judges import casekit


def secrets_of(dataset_root: Path) -> list[str]:
    """Label lines, and evidence lines (≥ 16 characters) of a dataset on disk.

    An evidence line that also occurs in the case package itself (say a pytest banner the agent
    saw in its own run) is public to the judge, so it is not a secret.
    """
    found: list[str] = []
    labels = dataset_root / "labels.jsonl"
    if labels.is_file():
        found += [ln.strip() for ln in labels.read_text().splitlines() if ln.strip()]
    evidence_root = dataset_root / "evidence"
    if not evidence_root.is_dir():
        return found
    for case_evidence in sorted(p for p in evidence_root.iterdir() if p.is_dir()):
        public = _package_text(dataset_root / "cases" / case_evidence.name)
        for path in sorted(p for p in case_evidence.rglob("*") if p.is_file()):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [ln.strip() for ln in text.splitlines()
                      if len(ln.strip()) >= 16 and ln.strip() not in public]
    return found


def _package_text(case_dir: Path) -> str:
    if not case_dir.is_dir():
        return ""
    files = sorted(p for p in case_dir.rglob("*") if p.is_file())
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


# Every request a judge sends offers one of these tools. Other stages (the evolution optimizer)
# may legitimately send dev-only evidence to a model; judges never may.
JUDGE_TOOLS = frozenset({"submit_verdict", "submit_rubric", "submit_grades"})


def judge_requests() -> list[ReceivedRequest]:
    return [r for r in list(ALL_REQUESTS)
            if {t.get("name") for t in r.body.get("tools", [])} & JUDGE_TOOLS]


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
    assert not judge_requests() or casekit.SECRETS, "judge requests seen but no secrets known"
    hits = leaked(list(casekit.SECRETS))
    assert not hits, f"label or evidence text reached a model: {hits[:5]}"


@pytest.fixture(scope="session")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The bundled example trials imported into a dataset (labels and evidence registered)."""
    from judge_runner.ingest import ImportOptions, import_trials

    require((EXAMPLES / "trials").is_dir(), f"bundled examples not found at {EXAMPLES}")
    out = tmp_path_factory.mktemp("examples") / "dataset"
    import_trials([EXAMPLES / "trials"], out, ImportOptions(task_dirs=[EXAMPLES / "tasks"]))
    built = Dataset(out)
    require(bool(built.case_ids()), "the bundled examples imported no case")
    casekit.SECRETS.extend(secrets_of(out))
    return built


@pytest.fixture
def dataset(tmp_path: Path) -> Dataset:
    """Two cases: c-fail wrote total 41 (label fail), c-pass wrote 42 (label pass)."""
    built = casekit.build_dataset(tmp_path / "data", {"c-fail": 41, "c-pass": 42})
    casekit.SECRETS.extend(secrets_of(built.root))
    return built
