"""Verifier for ssh-bruteforce-triage."""

import json
from pathlib import Path

EXPECTED = ["185.220.101.4", "203.0.113.7", "45.155.205.99"]


def test_ip_list_exists():
    assert Path("/root/output/bruteforce_ips.txt").is_file()


def test_ip_list_matches():
    lines = Path("/root/output/bruteforce_ips.txt").read_text().split()
    assert lines == EXPECTED


def test_summary():
    data = json.loads(Path("/root/output/summary.json").read_text())
    assert data == {"flagged": 3, "total_failed": 1287}
