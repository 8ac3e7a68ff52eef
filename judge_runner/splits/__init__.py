"""Benchmark splits: task-disjoint dev/eval construction and the fixed evolution gate."""
