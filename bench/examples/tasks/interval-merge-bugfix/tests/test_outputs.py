"""Verifier for interval-merge-bugfix: hidden tests plus the agent's own suite."""

import subprocess
import sys

sys.path.insert(0, "/app")

from intervals.core import merge_intervals  # noqa: E402


def test_touching_intervals_merge():
    assert merge_intervals([[1, 3], [3, 5]]) == [[1, 5]]


def test_unsorted_input():
    assert merge_intervals([[8, 10], [1, 3], [2, 6]]) == [[1, 6], [8, 10]]


def test_nested_and_empty():
    assert merge_intervals([[1, 10], [2, 3]]) == [[1, 10]]
    assert merge_intervals([]) == []


def test_agent_suite_passes():
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "/app/tests"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:]
