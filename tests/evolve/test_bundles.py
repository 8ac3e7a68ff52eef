from __future__ import annotations

from pathlib import Path

from judge_runner.cases import Dataset
from judge_runner.evolve.bundles import evidence_digest


def test_digest_reads_the_importers_evidence_layout(real_dataset: Path) -> None:
    """The importer keeps verifier output under evidence/<id>/verifier/: every failed real run
    gets a digest of what failed (from ctrf.json, or the stdout tail where only that exists)."""
    ds = Dataset(real_dataset)
    failed = [c for c, r in ds.labels().items() if r.label.value == "fail"]
    assert failed
    for case_id in failed:
        digest = evidence_digest(ds.evidence_dir(case_id))
        has_ctrf = any(ds.evidence_dir(case_id).rglob("ctrf.json"))
        assert digest.startswith("verifier:" if has_ctrf else "verifier output (tail):"), case_id
        assert "failed" in digest or "error" in digest.lower(), case_id


def test_digest_of_missing_evidence_is_empty(tmp_path: Path) -> None:
    assert evidence_digest(tmp_path / "absent") == ""
