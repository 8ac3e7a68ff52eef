"""Inline SVG plots for the reports: no scripts, no external files, deterministic output.

Every function returns a complete `<svg>` element as a string whose text is already escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a", "#bf3989")
_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def _fmt(x: float) -> str:
    return f"{x:.1f}"


def bar_chart(
    bars: Sequence[tuple[str, float, str]],
    max_value: float = 1.0,
    title: str = "",
    width: int = 560,
) -> str:
    """Horizontal bars of (label, value, annotation); values are clipped to [0, max_value]."""
    label_w, row_h, top = 170, 22, 28 if title else 8
    height = top + row_h * len(bars) + 10
    plot_w = width - label_w - 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {_FONT}>']
    if title:
        parts.append(f'<text x="4" y="16" font-weight="bold">{escape(title)}</text>')
    for i, (label, value, note) in enumerate(bars):
        y = top + i * row_h
        w = plot_w * min(max(value, 0.0), max_value) / max_value if max_value > 0 else 0.0
        parts.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">'
                     f"{escape(label)}</text>")
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{_fmt(w)}" height="{row_h - 6}" '
                     f'fill="{PALETTE[0]}"><title>{escape(label)}: {escape(note)}</title></rect>')
        parts.append(f'<text x="{_fmt(label_w + w + 4)}" y="{y + 15}">{escape(note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    x_label: str,
    y_label: str,
    y_max: float = 1.0,
    width: int = 640,
    height: int = 360,
) -> str:
    """Lines with markers over a shared x range; y runs from 0 to `y_max`; legend on the right.
    A line identical to an earlier one is dashed and its legend entry names that one."""
    left, right, top, bottom = 50, 170, 14, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [x for _, pts in series for x, _ in pts] or [0.0, 1.0]
    x_min, x_max = min(xs), max(xs)
    span = (x_max - x_min) or 1.0

    def px(x: float) -> float:
        return left + plot_w * (x - x_min) / span

    def py(y: float) -> float:
        return top + plot_h * (1 - min(max(y, 0.0), y_max) / y_max)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" {_FONT}>']
    for k in range(6):  # horizontal grid and y ticks
        y_val = y_max * k / 5
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_fmt(py(y_val))}" '
                     f'y2="{_fmt(py(y_val))}" stroke="#d0d7de"/>')
        parts.append(f'<text x="{left - 6}" y="{_fmt(py(y_val) + 4)}" text-anchor="end">'
                     f"{y_val:.1f}</text>")
    for x in sorted(set(xs)):
        parts.append(f'<text x="{_fmt(px(x))}" y="{top + plot_h + 16}" text-anchor="middle">'
                     f"{x:g}</text>")
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
                 f"{escape(x_label)}</text>")
    parts.append(f'<text x="12" y="{top + plot_h / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + plot_h / 2})">{escape(y_label)}</text>')
    drawn: dict[tuple[tuple[float, float], ...], str] = {}
    for i, (name, pts) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{_fmt(px(x))},{_fmt(py(y))}" for x, y in pts)
        # A line identical to one drawn before would hide it: dashed, and the legend says so.
        twin = drawn.setdefault(tuple(pts), name)
        dash = ' stroke-dasharray="6 4"' if twin != name else ""
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2"{dash} '
                     f'points="{path}"/>')
        if twin != name:
            name = f"{name} (= {twin})"
        for x, y in pts:
            parts.append(f'<circle cx="{_fmt(px(x))}" cy="{_fmt(py(y))}" r="3" fill="{color}">'
                         f"<title>{escape(name)} n={x:g}: {y:.3f}</title></circle>")
        ly = top + 14 + 18 * i
        parts.append(f'<rect x="{left + plot_w + 12}" y="{ly - 9}" width="12" height="4" '
                     f'fill="{color}"/>')
        parts.append(f'<text x="{left + plot_w + 30}" y="{ly - 3}">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def histogram(values: Sequence[float], bins: int, title: str, unit: str) -> str:
    """Counts of `values` in `bins` equal-width bins, as a bar chart of counts."""
    if not values:
        return bar_chart([], title=title)
    low, high = min(values), max(values)
    step = (high - low) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(int((v - low) / step), bins - 1)] += 1
    top = max(counts)
    bars = [(f"{low + i * step:.3g}–{low + (i + 1) * step:.3g} {unit}", float(c), str(c))
            for i, c in enumerate(counts)]
    return bar_chart(bars, max_value=float(top), title=title)
