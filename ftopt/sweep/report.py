"""`ftopt sweep-report`: a results file as a table, charts and a cost breakdown (HTML, Markdown, CSV).

The HTML page is self-contained (inline CSS and SVG, no scripts, no external assets, every text
escaped): for each swept parameter, the price of every scenario against that parameter's values
(all points, and a line through the cheapest at each value), the same for the makespan when the
plans carry one, then the cost of each plan by component kind (GPUs, CPUs, memory, drives, chassis,
bridges: each bill-of-materials line classed by its catalogue item), and the table of scenarios.
Markdown gives the tables (and per-value price ranges instead of charts); CSV one row per scenario.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any

from ftopt.model.hardware import Catalogue
from ftopt.sweep.store import read_records

#: Component kinds in report order, by the catalogue section an item id belongs to.
KINDS = {
    "gpus": "GPUs",
    "cpus": "CPUs",
    "dimms": "memory",
    "drives": "drives",
    "chassis": "chassis",
    "bridges": "bridges",
    "nics": "network",
    "switches": "network",
    "cables": "network",
}
OTHER = "other"
#: Okabe & Ito's colour-blind-safe palette, one colour per kind (as the placement diagram uses).
KIND_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999")
FONT = "font-family:'DejaVu Sans',Verdana,Arial,sans-serif"
#: Scenarios drawn in the breakdown chart (the cheapest); every one is in the table.
BREAKDOWN_BARS = 40


def load_results(path: Path) -> list[dict[str, Any]]:
    """The records of a results file, one per scenario, in grid order."""
    records = read_records(path)
    return sorted(records, key=lambda r: (r.get("index") is None, r.get("index") or 0))


def item_kinds(catalogue: Catalogue) -> dict[str, str]:
    """Report label (GPUs, CPUs, memory, …) by catalogue item id."""
    return {item.id: label for section, label in KINDS.items() for item in getattr(catalogue, section)}


def kind_labels() -> list[str]:
    """Every label, in report order, each once."""
    return [*dict.fromkeys(KINDS.values()), OTHER]


def breakdown(record: dict[str, Any], kinds: dict[str, str]) -> dict[str, float]:
    """The plan's price by component kind (empty without a plan)."""
    totals: dict[str, float] = {}
    plan = record.get("plan") or {}
    bills = [server.get("bill_of_materials", []) for server in plan.get("servers", [])]
    bills.append((plan.get("fabric") or {}).get("bill_of_materials", []))  # switches and cables
    for bill in bills:
        for line in bill:
            label = kinds.get(line.get("item", ""), OTHER)
            totals[label] = totals.get(label, 0.0) + float(line.get("price", 0.0))
    return totals


def swept_paths(records: Iterable[dict[str, Any]]) -> list[str]:
    """Every swept path, in order of first appearance."""
    paths: dict[str, None] = {}
    for record in records:
        for path in record.get("scenario", {}):
            paths.setdefault(path, None)
    return list(paths)


def shown(value: Any) -> str:
    """A swept value as a person reads it."""
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _amount(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def _has_makespan(records: list[dict[str, Any]]) -> bool:
    return any(r.get("makespan_hours") is not None for r in records)


def _note(record: dict[str, Any]) -> str:
    """Why a scenario has no plan, in one line."""
    if record.get("error"):
        return str(record["error"])
    return "; ".join(str(r.get("text", "")) for r in record.get("reasons", []))


def _columns(records: list[dict[str, Any]]) -> list[str]:
    makespan = ["makespan h"] if _has_makespan(records) else []
    return ["status", "price", "servers", "gap", *makespan, "wall s"]


def _row(record: dict[str, Any], makespan: bool) -> list[str]:
    gap = record.get("gap")
    cells = [
        str(record.get("status")),
        _amount(record.get("total_price")),
        "" if record.get("servers") is None else str(record["servers"]),
        "" if gap is None else f"{gap:.2%}",
    ]
    if makespan:
        hours = record.get("makespan_hours")
        cells.append("" if hours is None else f"{hours:,.1f}")
    wall = record.get("wall_seconds")
    cells.append("" if wall is None else f"{wall:.2f}")
    return cells


def _currency(records: list[dict[str, Any]]) -> str:
    return next((str(r["currency"]) for r in records if r.get("currency")), "")


def _status_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in records:
        counts[str(record.get("status"))] = counts.get(str(record.get("status")), 0) + 1
    return counts


def render_csv(records: list[dict[str, Any]], kinds: dict[str, str]) -> str:
    """One row per scenario: swept values, status, figures, cost by kind, and why no plan."""
    paths = swept_paths(records)
    labels = kind_labels()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            *paths,
            *("status", "total_price", "currency", "bound", "gap", "servers", "makespan_hours"),
            "wall_seconds",
            *(f"cost_{label.lower()}" for label in labels),
            "note",
        ]
    )
    for record in records:
        parts = breakdown(record, kinds)
        writer.writerow(
            [shown(record["scenario"].get(p)) for p in paths]
            + [record.get(k) for k in ("status", "total_price", "currency", "bound", "gap", "servers")]
            + [record.get("makespan_hours"), record.get("wall_seconds")]
            + [round(parts[label], 2) if label in parts else "" for label in labels]
            + [_note(record)]
        )
    return out.getvalue()


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _by_value(records: list[dict[str, Any]], path: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """Records grouped by their value of one swept parameter, values in a natural order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    raw: dict[str, Any] = {}
    for record in records:
        value = record["scenario"].get(path)
        groups.setdefault(shown(value), []).append(record)
        raw.setdefault(shown(value), value)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw.values())
    order = sorted(groups, key=lambda k: raw[k]) if numeric else list(groups)
    return [(key, groups[key]) for key in order]


def _prices(records: list[dict[str, Any]]) -> list[float]:
    return [float(r["total_price"]) for r in records if r.get("total_price") is not None]


def render_markdown(records: list[dict[str, Any]], kinds: dict[str, str]) -> str:
    """Summary, price range per value of each parameter, cost by kind, and every scenario."""
    paths = swept_paths(records)
    currency = _currency(records)
    makespan = _has_makespan(records)
    counts = ", ".join(f"{n} {status}" for status, n in _status_counts(records).items())
    lines = ["# Sweep report", "", f"{len(records)} scenarios: {counts}. Prices in {currency}.", ""]
    for path in paths:
        lines += [f"## Price against `{path}`", ""]
        lines.append(_md_row([path, "scenarios", "with a plan", "cheapest", "median", "dearest"]))
        lines.append(_md_row(["---", "---:", "---:", "---:", "---:", "---:"]))
        for value, group in _by_value(records, path):
            prices = _prices(group)
            figures = [min(prices), statistics.median(prices), max(prices)] if prices else []
            lines.append(
                _md_row([value, str(len(group)), str(len(prices)), *(_amount(p) for p in figures)])
                if prices
                else _md_row([value, str(len(group)), "0", "", "", ""])
            )
        lines.append("")
    labels = kind_labels()
    lines += ["## Scenarios", ""]
    headers = [*paths, *_columns(records), *labels, "note"]
    lines.append(_md_row(headers))
    lines.append(
        _md_row(["---"] * len(paths) + ["---"] + ["---:"] * (len(headers) - len(paths) - 2) + ["---"])
    )
    for record in records:
        parts = breakdown(record, kinds)
        lines.append(
            _md_row(
                [shown(record["scenario"].get(p)) for p in paths]
                + _row(record, makespan)
                + [_amount(parts.get(label)) for label in labels]
                + [_note(record)]
            )
        )
    return "\n".join(lines) + "\n"


# --- SVG charts ------------------------------------------------------------------------------------

CHART_W, CHART_H = 520, 300
PAD_L, PAD_R, PAD_T, PAD_B = 78, 16, 28, 58


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


def value_chart(records: list[dict[str, Any]], path: str, field: str, title: str) -> str:
    """Every scenario's `field` against its value of `path`; a line joins the lowest at each value."""
    groups = _by_value(records, path)
    values = [float(r[field]) for _, g in groups for r in g if r.get(field) is not None]
    top = _nice_max(max(values, default=0.0))
    plot_w, plot_h = CHART_W - PAD_L - PAD_R, CHART_H - PAD_T - PAD_B
    step = plot_w / max(1, len(groups))

    def y_of(v: float) -> float:
        return PAD_T + plot_h * (1 - v / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_W}" height="{CHART_H}" '
        f'viewBox="0 0 {CHART_W} {CHART_H}" role="img" aria-label="{escape(title)}" style="{FONT}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{CHART_W / 2:.0f}" y="16" text-anchor="middle" font-size="13" '
        f'font-weight="bold">{escape(title)}</text>',
    ]
    for tick in _ticks(top):
        y = y_of(tick)
        parts.append(
            f'<line x1="{PAD_L}" y1="{y:.1f}" x2="{CHART_W - PAD_R}" y2="{y:.1f}" stroke="#DDDDDD"/>'
            f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{_axis_label(tick)}</text>"
        )
    line: list[str] = []
    for i, (label, group) in enumerate(groups):
        x = PAD_L + step * (i + 0.5)
        short = label if len(label) <= 18 else label[:17] + "…"
        parts.append(
            f'<text x="{x:.1f}" y="{CHART_H - PAD_B + 16}" text-anchor="middle" font-size="11">'
            f"<title>{escape(label)}</title>{escape(short)}</text>"
        )
        points = [float(r[field]) for r in group if r.get(field) is not None]
        for v in points:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y_of(v):.1f}" r="3.5" fill="#56B4E9" fill-opacity="0.55" '
                f'stroke="#0072B2" stroke-width="0.8"><title>{escape(label)}: {v:,.2f}</title></circle>'
            )
        if points:
            line.append(f"{x:.1f},{y_of(min(points)):.1f}")
        missing = len(group) - len(points)
        if missing:
            parts.append(
                f'<text x="{x:.1f}" y="{CHART_H - PAD_B + 30}" text-anchor="middle" font-size="10" '
                f'fill="#A11A1A">{missing} without</text>'
            )
    if len(line) > 1:
        parts.append(f'<polyline points="{" ".join(line)}" fill="none" stroke="#0F4C81" stroke-width="2"/>')
    parts.append(
        f'<line x1="{PAD_L}" y1="{PAD_T + plot_h}" x2="{CHART_W - PAD_R}" y2="{PAD_T + plot_h}" '
        f'stroke="#333333"/>'
        f'<text x="{PAD_L + plot_w / 2:.0f}" y="{CHART_H - 8}" text-anchor="middle" font-size="12">'
        f"{escape(path)}</text></svg>"
    )
    return "".join(parts)


def breakdown_chart(records: list[dict[str, Any]], kinds: dict[str, str], currency: str) -> str:
    """Stacked bars: each plan's price by component kind, cheapest first (up to BREAKDOWN_BARS)."""
    priced = sorted((r for r in records if r.get("plan")), key=lambda r: float(r["total_price"]))
    shown_records = priced[:BREAKDOWN_BARS]
    labels = kind_labels()
    used = [label for label in labels if any(label in breakdown(r, kinds) for r in shown_records)]
    bar_h, gap, left, legend_h = 14, 4, 70, 28
    width = 760
    plot_w = width - left - 20
    top = _nice_max(max((float(r["total_price"]) for r in shown_records), default=0.0))
    height = legend_h + len(shown_records) * (bar_h + gap) + 30
    title = f"Price by component kind, {currency}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" style="{FONT}">',
        f"<title>{escape(title)}</title>",
    ]
    x = left
    for label in used:
        colour = KIND_COLOURS[labels.index(label)]
        parts.append(
            f'<rect x="{x}" y="6" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 16}" y="16" font-size="11">{escape(label)}</text>'
        )
        x += 24 + 7 * len(label)
    for i, record in enumerate(shown_records):
        y = legend_h + i * (bar_h + gap)
        parts.append(
            f'<text x="{left - 6}" y="{y + 11}" text-anchor="end" font-size="10">'
            f"#{record.get('index')}</text>"
        )
        offset = 0.0
        cost = breakdown(record, kinds)
        for label in used:
            amount = cost.get(label, 0.0)
            if not amount:
                continue
            w = plot_w * amount / top
            colour = KIND_COLOURS[labels.index(label)]
            parts.append(
                f'<rect x="{left + offset:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}">'
                f"<title>#{record.get('index')} {escape(label)}: {amount:,.0f}</title></rect>"
            )
            offset += w
    axis_y = legend_h + len(shown_records) * (bar_h + gap) + 4
    for tick in _ticks(top):
        tx = left + plot_w * tick / top
        parts.append(
            f'<text x="{tx:.1f}" y="{axis_y + 12}" text-anchor="middle" font-size="10">'
            f"{_axis_label(tick)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


CSS = """
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; font-size: 14px; color: #1A1A1A;
       margin: 0 auto; padding: 24px 32px; max-width: 1500px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #0F4C81; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.charts svg, .breakdown svg { max-width: 100%; height: auto; border: 1px solid #E5E5E5; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border-bottom: 1px solid #DDDDDD; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #EEF2F6; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.wide { overflow-x: auto; }
.muted { color: #555555; }
"""


def render_html(records: list[dict[str, Any]], kinds: dict[str, str], title: str = "Sweep report") -> str:
    """One self-contained page: summary, a chart per swept parameter, the breakdown, the table."""
    paths = swept_paths(records)
    currency = _currency(records)
    makespan = _has_makespan(records)
    counts = ", ".join(f"{n} {escape(s)}" for s, n in _status_counts(records).items())
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{len(records)} scenarios: {counts}. Prices in {escape(currency)}.</p>',
        "<h2>Price against each swept parameter</h2>",
        '<div class="charts">',
        *(value_chart(records, p, "total_price", f"price ({currency}) by {p}") for p in paths),
        "</div>",
    ]
    if makespan:
        body += [
            "<h2>Makespan against each swept parameter</h2>",
            '<div class="charts">',
            *(value_chart(records, p, "makespan_hours", f"makespan (h) by {p}") for p in paths),
            "</div>",
        ]
    if any(r.get("plan") for r in records):
        planned = sum(1 for r in records if r.get("plan"))
        note = f" (the {BREAKDOWN_BARS} cheapest of {planned})" if planned > BREAKDOWN_BARS else ""
        body += [
            f"<h2>Cost by component kind{escape(note)}</h2>",
            f'<div class="breakdown">{breakdown_chart(records, kinds, currency)}</div>',
        ]
    labels = kind_labels()
    columns = _columns(records)
    head = "".join(f"<th>{escape(h)}</th>" for h in ["#", *paths, *columns, *labels, "note"])
    rows = []
    for record in records:
        parts = breakdown(record, kinds)
        cells = [f'<td class="num">{record.get("index")}</td>']
        cells += [f"<td>{escape(shown(record['scenario'].get(p)))}</td>" for p in paths]
        figures = _row(record, makespan)
        cells.append(f"<td>{escape(figures[0])}</td>")
        cells += [f'<td class="num">{escape(c)}</td>' for c in figures[1:]]
        cells += [f'<td class="num">{_amount(parts.get(label))}</td>' for label in labels]
        cells.append(f"<td>{escape(_note(record))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body += [
        "<h2>Scenarios</h2>",
        f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
