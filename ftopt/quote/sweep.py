"""`ftopt sweep-report`'s views: HTML (SVG charts and a table, in the shared page shell), Markdown
and CSV, one row per scenario.

The figures come from `ftopt.sweep.report`. Charts plot the objective the plans minimised: the
price, or the TCO when the workload's objective is `tco` (a TCO sweep plotted by purchase price
would show a quantity nobody optimised). For each swept parameter, every scenario's value against
that parameter's values (all points, and a line through the lowest at each value), the same for the
makespan when plans carry one, then each plan's price by component kind and the table of scenarios.
Markdown gives per-value ranges instead of charts. Every text from a record is escaped for its
format; no CSV cell can start like a spreadsheet formula.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Callable
from html import escape
from typing import Any

from ftopt.quote.escape import cell_text, markdown_text
from ftopt.quote.page import ACCENT, FONT, page, table
from ftopt.sweep.report import (
    breakdown,
    by_value,
    currency,
    has_makespan,
    kind_labels,
    note,
    objective,
    objective_value,
    shown,
    status_counts,
    swept_paths,
    time_axis,
)

Record = dict[str, Any]

#: Okabe & Ito's colour-blind-safe palette, one colour per kind (as the placement diagram uses).
KIND_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
#: Scenarios drawn in the breakdown chart (the cheapest); every one is in the table.
BREAKDOWN_BARS = 40
CHART_W, CHART_H = 520, 300
PAD_L, PAD_R, PAD_T, PAD_B = 78, 16, 28, 58


def objective_label(minimised: str) -> str:
    """How the report names the objective: `price` or `TCO`."""
    return "TCO" if minimised == "tco" else "price"


def _capital(text: str) -> str:
    """`price` → `Price`; `TCO` stays."""
    return text[:1].upper() + text[1:]


def _amount(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def _columns(records: list[Record]) -> list[str]:
    makespan = [f"{time_axis(records)} h"] if has_makespan(records) else []
    tco = ["TCO"] if objective(records) == "tco" else []
    return ["status", "price", *tco, "servers", "gap", *makespan, "wall s"]


def _row(record: Record, makespan: bool, tco: bool) -> list[str]:
    gap = record.get("gap")
    cells = [str(record.get("status")), _amount(record.get("total_price"))]
    if tco:
        cells.append(_amount(objective_value(record, "tco")))
    cells += [
        "" if record.get("servers") is None else str(record["servers"]),
        "" if gap is None else f"{gap:.2%}",
    ]
    if makespan:
        hours = record.get("makespan_hours")
        cells.append("" if hours is None else f"{hours:,.1f}")
    wall = record.get("wall_seconds")
    cells.append("" if wall is None else f"{wall:.2f}")
    return cells


# --- CSV -------------------------------------------------------------------------------------------


def render_csv(records: list[Record], kinds: dict[str, str]) -> str:
    """One row per scenario: swept values, status, figures, cost by kind, and why no plan."""
    paths = swept_paths(records)
    labels = kind_labels()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            *(cell_text(p) for p in paths),
            *("status", "total_price", "tco", "currency", "bound", "gap", "servers", "makespan_hours"),
            "wall_seconds",
            *(f"cost_{label.lower()}" for label in labels),
            "note",
        ]
    )
    for record in records:
        parts = breakdown(record, kinds)
        writer.writerow(
            [cell_text(shown(record["scenario"].get(p))) for p in paths]
            + [record.get("status"), record.get("total_price"), objective_value(record, "tco")]
            + [record.get(k) for k in ("currency", "bound", "gap", "servers")]
            + [record.get("makespan_hours"), record.get("wall_seconds")]
            + [round(parts[label], 2) if label in parts else "" for label in labels]
            + [cell_text(note(record))]
        )
    return out.getvalue()


# --- Markdown --------------------------------------------------------------------------------------


def _code(text: str) -> str:
    """A swept path as inline code (inert inside backticks), or escaped text if it holds one."""
    return f"`{text}`" if "`" not in text and "\n" not in text else markdown_text(text)


def _md_row(cells: list[str]) -> str:
    """A table row of cells that are already Markdown."""
    return "| " + " | ".join(cells) + " |"


def render_markdown(records: list[Record], kinds: dict[str, str]) -> str:
    """Summary, the objective's range per value of each parameter, cost by kind, every scenario."""
    paths = swept_paths(records)
    minimised = objective(records)
    counts = ", ".join(f"{n} {markdown_text(status)}" for status, n in status_counts(records).items())
    money = markdown_text(currency(records))
    lines = ["# Sweep report", "", f"{len(records)} scenarios: {counts}. Prices in {money}.", ""]
    for path in paths:
        lines += _md_value_section(records, path, minimised)
    lines += _md_scenarios(records, kinds, paths, minimised == "tco")
    return "\n".join(lines) + "\n"


def _md_value_section(records: list[Record], path: str, minimised: str) -> list[str]:
    """The objective's lowest, median and highest per value of one swept path (blank without plans)."""
    lines = [f"## {_capital(objective_label(minimised))} against {_code(path)}", ""]
    lines.append(_md_row([markdown_text(path), "scenarios", "with a plan", "lowest", "median", "highest"]))
    lines.append(_md_row(["---", "---:", "---:", "---:", "---:", "---:"]))
    for value, group in by_value(records, path):
        values = [v for r in group if (v := objective_value(r, minimised)) is not None]
        if values:
            figures = [min(values), statistics.median(values), max(values)]
            cells = [markdown_text(value), str(len(group)), str(len(values)), *(_amount(p) for p in figures)]
        else:
            cells = [markdown_text(value), str(len(group)), "0", "", "", ""]
        lines.append(_md_row(cells))
    return [*lines, ""]


def _md_scenarios(records: list[Record], kinds: dict[str, str], paths: list[str], tco: bool) -> list[str]:
    """Every scenario as a row: its swept values, outcome, cost by kind and note."""
    labels = kind_labels()
    makespan = has_makespan(records)
    lines = ["## Scenarios", ""]
    headers = [*paths, *_columns(records), *labels, "note"]
    lines.append(_md_row([markdown_text(h) for h in headers]))
    lines.append(
        _md_row(["---"] * len(paths) + ["---"] + ["---:"] * (len(headers) - len(paths) - 2) + ["---"])
    )
    for record in records:
        parts = breakdown(record, kinds)
        lines.append(
            _md_row(
                [markdown_text(shown(record["scenario"].get(p))) for p in paths]
                + [markdown_text(c) for c in _row(record, makespan, tco)]
                + [_amount(parts.get(label)) for label in labels]
                + [markdown_text(note(record))]
            )
        )
    return lines


# --- SVG charts ------------------------------------------------------------------------------------


def _nice_max(value: float) -> float:
    """A round axis maximum at or above `value`."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= value:
            return float(step * magnitude)
    return float(10 * magnitude)


def _ticks(top: float) -> list[float]:
    return [top * i / 4 for i in range(5)]


def _axis_label(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 10_000:
        return f"{value / 1_000:g}k"
    return f"{value:,.0f}" if value >= 10 else f"{value:g}"


def _svg_open(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" style="{FONT}">',
        f"<title>{escape(title)}</title>",
    ]


def value_chart(records: list[Record], path: str, value: Callable[[Record], float | None], title: str) -> str:
    """Every scenario's `value` against its value of `path`; a line joins the lowest at each value."""
    groups = by_value(records, path)
    values = [v for _, g in groups for r in g if (v := value(r)) is not None]
    top = _nice_max(max(values, default=0.0))
    plot_w, plot_h = CHART_W - PAD_L - PAD_R, CHART_H - PAD_T - PAD_B
    step = plot_w / max(1, len(groups))

    def y_of(v: float) -> float:
        return PAD_T + plot_h * (1 - v / top)

    parts = _svg_open(CHART_W, CHART_H, title)
    parts.append(
        f'<text x="{CHART_W / 2:.0f}" y="16" text-anchor="middle" font-size="13" '
        f'font-weight="bold">{escape(title)}</text>'
    )
    parts += [
        f'<line x1="{PAD_L}" y1="{y_of(tick):.1f}" x2="{CHART_W - PAD_R}" y2="{y_of(tick):.1f}" '
        f'stroke="#DDDDDD"/><text x="{PAD_L - 6}" y="{y_of(tick) + 4:.1f}" text-anchor="end" font-size="11">'
        f"{_axis_label(tick)}</text>"
        for tick in _ticks(top)
    ]
    line: list[str] = []
    for i, (label, group) in enumerate(groups):
        x = PAD_L + step * (i + 0.5)
        points = [v for r in group if (v := value(r)) is not None]
        parts += _value_column(x, label, points, len(group) - len(points), y_of)
        if points:
            line.append(f"{x:.1f},{y_of(min(points)):.1f}")
    if len(line) > 1:
        parts.append(f'<polyline points="{" ".join(line)}" fill="none" stroke="{ACCENT}" stroke-width="2"/>')
    parts.append(
        f'<line x1="{PAD_L}" y1="{PAD_T + plot_h}" x2="{CHART_W - PAD_R}" y2="{PAD_T + plot_h}" '
        f'stroke="#333333"/>'
        f'<text x="{PAD_L + plot_w / 2:.0f}" y="{CHART_H - 8}" text-anchor="middle" font-size="12">'
        f"{escape(path)}</text></svg>"
    )
    return "".join(parts)


def _value_column(
    x: float, label: str, points: list[float], missing: int, y_of: Callable[[float], float]
) -> list[str]:
    """One swept value's column: its label (cut to 18 characters, whole in the tooltip), a dot per
    scenario with a plan, and how many have none."""
    short = label if len(label) <= 18 else label[:17] + "…"
    parts = [
        f'<text x="{x:.1f}" y="{CHART_H - PAD_B + 16}" text-anchor="middle" font-size="11">'
        f"<title>{escape(label)}</title>{escape(short)}</text>"
    ]
    parts += [
        f'<circle cx="{x:.1f}" cy="{y_of(v):.1f}" r="3.5" fill="#56B4E9" fill-opacity="0.55" '
        f'stroke="#0072B2" stroke-width="0.8"><title>{escape(label)}: {v:,.2f}</title></circle>'
        for v in points
    ]
    if missing:
        parts.append(
            f'<text x="{x:.1f}" y="{CHART_H - PAD_B + 30}" text-anchor="middle" font-size="10" '
            f'fill="#A11A1A">{missing} without</text>'
        )
    return parts


#: The breakdown chart's geometry: bar height and gap, the left margin for labels, the legend row.
_BAR_H, _BAR_GAP, _BAR_LEFT, _LEGEND_H, _BREAKDOWN_W = 14, 4, 70, 28, 760


def breakdown_chart(records: list[Record], kinds: dict[str, str], money: str) -> str:
    """Stacked bars: each plan's price by component kind, cheapest first (up to BREAKDOWN_BARS)."""
    priced = sorted((r for r in records if r.get("plan")), key=lambda r: float(r["total_price"]))
    shown_records = priced[:BREAKDOWN_BARS]
    used = [label for label in kind_labels() if any(label in breakdown(r, kinds) for r in shown_records)]
    plot_w = _BREAKDOWN_W - _BAR_LEFT - 20
    top = _nice_max(max((float(r["total_price"]) for r in shown_records), default=0.0))
    height = _LEGEND_H + len(shown_records) * (_BAR_H + _BAR_GAP) + 30
    parts = _svg_open(_BREAKDOWN_W, height, f"Price by component kind, {money}")
    parts += _kind_legend(used)
    for i, record in enumerate(shown_records):
        y = _LEGEND_H + i * (_BAR_H + _BAR_GAP)
        parts += _stacked_bar(record, breakdown(record, kinds), used, y, (plot_w, top))
    axis_y = _LEGEND_H + len(shown_records) * (_BAR_H + _BAR_GAP) + 4
    for tick in _ticks(top):
        tx = _BAR_LEFT + plot_w * tick / top
        parts.append(
            f'<text x="{tx:.1f}" y="{axis_y + 12}" text-anchor="middle" font-size="10">'
            f"{_axis_label(tick)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _kind_colour(label: str) -> str:
    """A kind's colour: the same in every chart, by its place among all kinds."""
    return KIND_COLOURS[kind_labels().index(label)]


def _kind_legend(used: list[str]) -> list[str]:
    """The kinds the bars use, each with its colour, in one row over the bars."""
    parts, x = [], _BAR_LEFT
    for label in used:
        parts.append(
            f'<rect x="{x}" y="6" width="12" height="12" fill="{_kind_colour(label)}"/>'
            f'<text x="{x + 16}" y="16" font-size="11">{escape(label)}</text>'
        )
        x += 24 + 7 * len(label)
    return parts


def _stacked_bar(
    record: Record, cost: dict[str, float], used: list[str], y: int, scale: tuple[int, float]
) -> list[str]:
    """One plan's bar: its scenario number, then a segment per kind it pays for, in legend order;
    `scale` is the plot's width in pixels and the amount it spans."""
    plot_w, top = scale
    number = escape(str(record.get("index")))
    parts = [f'<text x="{_BAR_LEFT - 6}" y="{y + 11}" text-anchor="end" font-size="10">#{number}</text>']
    offset = 0.0
    for label in used:
        amount = cost.get(label, 0.0)
        if not amount:
            continue
        w = plot_w * amount / top
        parts.append(
            f'<rect x="{_BAR_LEFT + offset:.1f}" y="{y}" width="{w:.1f}" height="{_BAR_H}" '
            f'fill="{_kind_colour(label)}"><title>#{number} {escape(label)}: {amount:,.0f}</title></rect>'
        )
        offset += w
    return parts


# --- HTML ------------------------------------------------------------------------------------------


def _charts(heading: str, charts: list[str]) -> list[str]:
    return [f"<h2>{escape(heading)}</h2>", '<div class="charts">', *charts, "</div>"]


def _scenario_table(records: list[Record], kinds: dict[str, str], paths: list[str]) -> str:
    labels = kind_labels()
    makespan, tco = has_makespan(records), objective(records) == "tco"
    status, *figures = _columns(records)
    headers = [("#", True), *((p, False) for p in paths), (status, False), *((f, True) for f in figures)]
    headers += [*((label, True) for label in labels), ("note", False)]
    rows = []
    for record in records:
        parts = breakdown(record, kinds)
        cells = [str(record.get("index")), *(shown(record["scenario"].get(p)) for p in paths)]
        cells += _row(record, makespan, tco) + [_amount(parts.get(label)) for label in labels]
        rows.append([escape(c) for c in [*cells, note(record)]])
    return table(headers, rows)


def _makespan(record: Record) -> float | None:
    hours = record.get("makespan_hours")
    return None if hours is None else float(hours)


def render_html(records: list[Record], kinds: dict[str, str], title: str = "Sweep report") -> str:
    """One self-contained page: summary, a chart per swept parameter, the breakdown, the table."""
    paths = swept_paths(records)
    money = currency(records)
    minimised = objective(records)
    label = objective_label(minimised)
    counts = ", ".join(f"{n} {escape(s)}" for s, n in status_counts(records).items())
    objective_charts = [
        value_chart(records, p, lambda r: objective_value(r, minimised), f"{label} ({money}) by {p}")
        for p in paths
    ]
    body = [
        f'<p class="muted">{len(records)} scenarios: {counts}. Prices in {escape(money)}; the plans '
        f"minimise the {escape(label)}.</p>",
        *_charts(f"{_capital(label)} against each swept parameter", objective_charts),
    ]
    if has_makespan(records):
        axis = time_axis(records)
        body += _charts(
            f"{_capital(axis)} against each swept parameter",
            [value_chart(records, p, _makespan, f"{axis} (h) by {p}") for p in paths],
        )
    if any(r.get("plan") for r in records):
        planned = sum(1 for r in records if r.get("plan"))
        extra = f" (the {BREAKDOWN_BARS} cheapest of {planned})" if planned > BREAKDOWN_BARS else ""
        body += [
            f"<h2>Cost by component kind{escape(extra)}</h2>",
            f'<div class="breakdown">{breakdown_chart(records, kinds, money)}</div>',
        ]
    body += ["<h2>Scenarios</h2>", _scenario_table(records, kinds, paths)]
    return page(title, "\n".join(body))
