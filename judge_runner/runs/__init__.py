"""Evaluation runs: metrics, the SQLite run store, the concurrent runner, comparisons, reports."""
