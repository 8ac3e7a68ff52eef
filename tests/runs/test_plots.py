"""The SVG charts of the reports."""

from __future__ import annotations

import re

from judge_runner.runs.plots import line_chart


def test_a_line_identical_to_another_is_not_hidden_under_it() -> None:
    same = [(1.0, 0.4), (2.0, 0.5)]
    svg = line_chart([("oracle", same), ("rules", same), ("random", [(1.0, 0.3), (2.0, 0.35)])],
                     x_label="n", y_label="Success@n")
    lines = re.findall(r"<polyline[^>]*>", svg)
    assert len(lines) == 3
    assert "stroke-dasharray" not in lines[0] and "stroke-dasharray" in lines[1]
    assert "stroke-dasharray" not in lines[2]
    assert "rules (= oracle)" in svg
