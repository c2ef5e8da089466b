"""Small server-side SVG charts: no JavaScript, no CDN, nothing the CSP has to allow.

Every chart is drawn from the same rows the page shows in a table beside it, so the table is
the accessible alternative and the SVG is marked as an image with a title and description.
Colours are from a palette with enough contrast against white (WCAG 1.4.11).
"""

from dataclasses import dataclass
from decimal import Decimal
from html import escape

PALETTE = ["#1f4e9e", "#b5471b", "#2e7d32", "#6a1b9a", "#00695c", "#8d6e00", "#ad1457"]


@dataclass
class Series:
    label: str
    values: list


def _nice_max(value):
    value = float(value or 0)
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 2.5, 5, 10):
        top = step * magnitude
        if top >= value:
            return float(top)
    return float(10 * magnitude)


def _fmt(value):
    if isinstance(value, Decimal | float):
        value = float(value)
        return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{value:,}"


def bar_chart(*, title, description, categories, series, width=640, height=280, unit=""):
    """A grouped bar chart. `categories` label the x axis; each Series has one value per
    category. Returns SVG markup (safe to mark_safe: every text is escaped here)."""
    left, right, top, bottom = 56, 12, 28, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    top_value = _nice_max(max((float(v or 0) for s in series for v in s.values), default=0))
    n_cat = max(len(categories), 1)
    group_w = plot_w / n_cat
    bar_w = max(2.0, (group_w * 0.8) / max(len(series), 1))
    # The legend wraps onto further rows below the chart when its entries do not fit in one.
    per_row = max(1, (width - left) // 140)
    legend_rows = -(-len(series) // per_row) if series else 1
    total_height = height + 16 * (legend_rows - 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {total_height}" role="img" '
        f'aria-labelledby="chart-title-{id(series)} chart-desc-{id(series)}" class="chart">',
        f'<title id="chart-title-{id(series)}">{escape(title)}</title>',
        f'<desc id="chart-desc-{id(series)}">{escape(description)}</desc>',
    ]
    for i in range(5):
        y = top + plot_h - plot_h * i / 4
        value = top_value * i / 4
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
            'stroke="#ccc" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
            f'fill="#333">{escape(_fmt(value))}{escape(unit)}</text>'
        )
    for c, category in enumerate(categories):
        x0 = left + group_w * c + group_w * 0.1
        for s_index, s in enumerate(series):
            value = float(s.values[c] or 0)
            h = plot_h * value / top_value
            x = x0 + bar_w * s_index
            colour = PALETTE[s_index % len(PALETTE)]
            parts.append(
                f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 1:.1f}" '
                f'height="{h:.1f}" fill="{colour}"><title>{escape(s.label)}, '
                f"{escape(str(category))}: {escape(_fmt(s.values[c] or 0))}</title></rect>"
            )
        if n_cat <= 12 or c % 2 == 0:
            cx = left + group_w * c + group_w / 2
            parts.append(
                f'<text x="{cx:.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
                f'font-size="11" fill="#333">{escape(str(category))}</text>'
            )
    for s_index, s in enumerate(series):
        lx = left + 140 * (s_index % per_row)
        ly = height - 18 + 16 * (s_index // per_row)
        colour = PALETTE[s_index % len(PALETTE)]
        parts.append(f'<rect x="{lx}" y="{ly}" width="10" height="10" fill="{colour}"/>')
        parts.append(
            f'<text x="{lx + 14}" y="{ly + 9}" font-size="11" fill="#333">{escape(s.label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
