"""The price–makespan frontier as JSON records, a table, an inline SVG chart and an HTML page, and the
quote's "three bids" section (the cheapest, the fastest and the knee).

No solver import at run time (only for types), so the renderers load without OR-Tools. The chart is
plain SVG written here, in the placement diagram's font and colours: no scripts, no plotting library.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table

from ftopt.model.findings import money
from ftopt.model.spread import confidence_words
from ftopt.quote.page import ACCENT, FONT, page, table
from ftopt.quote.table import UNBOUNDED_WIDTH

if TYPE_CHECKING:
    from ftopt.solver.frontier import Frontier, FrontierPoint

CHART_W, CHART_H = 760, 380
PAD_L, PAD_R, PAD_T, PAD_B = 96, 24, 20, 52
LINE = ACCENT  # the quote's heading blue
KNEE = "#D55E00"  # Okabe & Ito vermilion, as in the placement palette


def value_label(frontier: Frontier) -> str:
    """What the vertical axis is: the price, or the TCO."""
    return "TCO" if frontier.objective == "tco" else "price"


def point_record(point: FrontierPoint) -> dict[str, Any]:
    """One point as the JSON record of `ftopt frontier --format json`."""
    return {
        "makespan_hours": round(point.makespan_hours, 4),
        "total_price": point.total_price,
        "tco": point.tco,
        "status": point.status.value,
        "servers": point.servers(),
        "server_count": point.server_count,
        "gap": point.gap,
        "proven": point.proven,
        "seconds": round(point.seconds, 3),
        "budget_s": round(point.budget_s, 3),
        "reused": point.reused,
        "plan": point.plan.model_dump(mode="json", by_alias=True),
    }


def frontier_records(frontier: Frontier) -> dict[str, Any]:
    """`{"objective", "stopped", "solves", "seconds", "points": [...]}`, fastest point first."""
    return {
        "objective": frontier.objective,
        "confidence": frontier.confidence,
        "stopped": frontier.stopped,
        "reason": frontier.reason or None,
        "solves": frontier.solves,
        "seconds": round(frontier.seconds, 3),
        "budget_s": round(frontier.budget_s, 3),
        "sharing": frontier.sharing,
        "proven_points": frontier.proven_points,
        "points": [point_record(p) for p in frontier.points],
    }


def render_frontier_table(frontier: Frontier, console: Console) -> None:
    """One row per point: makespan, price, TCO, status, servers."""
    currency = frontier.points[0].plan.currency if frontier.points else ""
    plain = console.width >= UNBOUNDED_WIDTH  # a file or a pipe: ASCII rules
    title = f"Frontier: {value_label(frontier)} against makespan ({len(frontier.points)} points)"
    table = Table(title=title, box=box.ASCII if plain else box.HEAVY_HEAD)
    for header, right in (("#", True), (frontier.hours_label, True), ("price", True), ("TCO", True),
                          ("status", False), ("gap", True), ("servers", False)):  # fmt: skip
        table.add_column(header, justify="right" if right else "left")
    knee = frontier.knee() if frontier.points else None
    for i, p in enumerate(frontier.points, start=1):
        table.add_row(*_table_row(i, p, p is knee, currency))
    console.print(table)
    console.print(
        f"{frontier.solves} solves in {frontier.seconds:.2f} s; stopped: {frontier.stopped}"
        + (f" ({frontier.reason})" if frontier.reason and frontier.stopped == "infeasible" else "")
    )


def _table_row(i: int, p: FrontierPoint, is_knee: bool, currency: str) -> list[str]:
    """A point's cells; a dash where it has no TCO (no power price) or no gap (proven optimal)."""
    return [
        f"{i}{' (knee)' if is_knee else ''}",
        f"{p.makespan_hours:,.2f}",
        money(p.total_price, currency),
        money(p.tco, currency) if p.tco is not None else "—",
        p.status.value,
        f"{p.gap:.2%}" if p.gap is not None else "—",
        "; ".join(p.servers()),
    ]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    step = (high - low) / (count - 1)
    return [low + i * step for i in range(count)]


def axis_money(amount: float) -> str:
    """A money axis's tick: whole units, never cents (`748,544`, not `748,543.67`): a tick marks a
    place on the axis, and the figures it stands between are printed exactly elsewhere."""
    return f"{round(amount):,}"


def _axis_caption(frontier: Frontier) -> str:
    """The chart's time axis in words: the last job's end in a queue, else the longest copy's hours."""
    if frontier.queue:
        return "last job's end, hours from the horizon's start"
    return (
        f"makespan at {confidence_words(frontier.confidence)}, hours (the longest copy's time to train, "
        "with the speed model's spread)"
    )


@dataclass(frozen=True)
class _Scale:
    """The chart's data ranges (padded so that no point sits on the frame) and their pixels."""

    x0: float
    x1: float
    y0: float
    y1: float

    @property
    def inner_w(self) -> int:
        return CHART_W - PAD_L - PAD_R

    @property
    def inner_h(self) -> int:
        return CHART_H - PAD_T - PAD_B

    def sx(self, x: float) -> float:
        return PAD_L + (x - self.x0) / (self.x1 - self.x0) * self.inner_w

    def sy(self, y: float) -> float:
        return PAD_T + (1 - (y - self.y0) / (self.y1 - self.y0)) * self.inner_h


def _padded(values: list[float], pad: float) -> tuple[float, float]:
    """The values' range widened by `pad` of itself each side (a single value gets ±10 % first)."""
    low, high = min(values), max(values)
    if high == low:
        low, high = low * 0.9, high * 1.1 + 1e-9
    return low - pad * (high - low), high + pad * (high - low)


def _axes_svg(scale: _Scale, frontier: Frontier, label: str, currency: str) -> list[str]:
    """The ticks and numbers of both axes and their captions."""
    inner_w, inner_h = scale.inner_w, scale.inner_h
    parts = [
        f'<line x1="{scale.sx(t):.1f}" y1="{PAD_T + inner_h}" x2="{scale.sx(t):.1f}" '
        f'y2="{PAD_T + inner_h + 4}" '
        f'stroke="#555555"/><text x="{scale.sx(t):.1f}" y="{PAD_T + inner_h + 17}" font-size="11" '
        f'text-anchor="middle">{t:,.1f}</text>'
        for t in _ticks(scale.x0, scale.x1)
    ]
    parts += [
        f'<line x1="{PAD_L - 4}" y1="{scale.sy(t):.1f}" x2="{PAD_L}" y2="{scale.sy(t):.1f}" '
        'stroke="#555555"/>'
        f'<text x="{PAD_L - 6}" y="{scale.sy(t) + 4:.1f}" font-size="11" text-anchor="end">'
        f"{escape(axis_money(t))}</text>"
        for t in _ticks(scale.y0, scale.y1)
    ]
    parts.append(
        f'<text x="{PAD_L + inner_w / 2:.1f}" y="{CHART_H - 10}" font-size="12" text-anchor="middle">'
        f"{_axis_caption(frontier)}</text>"
        f'<text x="14" y="{PAD_T + inner_h / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {PAD_T + inner_h / 2:.1f})">{escape(label)}, {escape(currency)}</text>'
    )
    return parts


def _points_svg(scale: _Scale, frontier: Frontier, currency: str) -> list[str]:
    """The line through the points in makespan order, then each point numbered, the knee marked."""
    points = frontier.points
    path = " ".join(f"{scale.sx(p.makespan_hours):.1f},{scale.sy(p.value):.1f}" for p in points)
    parts = [f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>']
    knee = frontier.knee()
    for i, p in enumerate(points, start=1):
        colour = KNEE if p is knee else LINE
        cx, cy = scale.sx(p.makespan_hours), scale.sy(p.value)
        tip = f"{i}: {p.makespan_hours:,.1f} h, {money(p.value, currency)}, {p.status.value}"
        parts.append(
            f'<g data-point="{i}"><title>{escape(tip)}</title>'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{colour}" stroke="#1A1A1A"/>'
            f'<text x="{cx + 7:.1f}" y="{cy - 7:.1f}" font-size="11">{i}'
            f"{' knee' if p is knee else ''}</text></g>"
        )
    return parts


def frontier_svg(frontier: Frontier) -> str:
    """Price (or TCO) against makespan: the points joined in makespan order, each labelled."""
    points = frontier.points
    if not points:
        return ""
    scale = _Scale(
        *_padded([p.makespan_hours for p in points], 0.05), *_padded([p.value for p in points], 0.08)
    )
    currency = points[0].plan.currency
    label = value_label(frontier)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_W} {CHART_H}" width="{CHART_W}" '
        f'height="{CHART_H}" role="img" aria-label="{escape(label)} against makespan" style="{FONT}">',
        f'<rect x="{PAD_L}" y="{PAD_T}" width="{scale.inner_w}" height="{scale.inner_h}" fill="#FAFAFA" '
        'stroke="#888888"/>',
        *_axes_svg(scale, frontier, label, currency),
        *_points_svg(scale, frontier, currency),
        "</svg>",
    ]
    return "".join(parts)


def _bid_row(name: str, point: FrontierPoint, cost: FrontierPoint | None) -> str:
    currency = point.plan.currency
    tco = escape(money(point.tco, currency)) if point.tco is not None else "—"
    seller = (
        f"<td class=num>{escape(money(cost.total_price, currency))}</td>"
        f"<td class=num>{escape(money(point.total_price - cost.total_price, currency))}</td>"
        if cost is not None
        else ""
    )
    return (
        f"<tr><td>{escape(name)}</td><td class=num>{escape(money(point.total_price, currency))}</td>"
        f"{seller}<td class=num>{tco}</td><td class=num>{point.makespan_hours:,.1f}</td>"
        f"<td>{escape(point.status.value)}</td><td>{escape('; '.join(point.servers()))}</td></tr>"
    )


def _at_cost(frontier: Frontier, cost: Frontier | None, point: FrontierPoint) -> FrontierPoint | None:
    """`point`'s twin in the cost frontier (the same index: pricing keeps the points' order)."""
    return cost.points[frontier.points.index(point)] if cost is not None else None


def three_bids_html(frontier: Frontier, cost: Frontier | None = None) -> str:
    """The quote's section: the cheapest, the fastest and the knee of the frontier, and the chart;
    with `cost` (the seller's copy of a bid with a margin), each bid's cost and margin beside its
    price, which is then the sell price, as in the buyer's copy."""
    if not frontier.points:
        return ""
    bids = [("cheapest", frontier.cheapest()), ("knee", frontier.knee()), ("fastest", frontier.fastest())]
    rows = "".join(_bid_row(name, p, _at_cost(frontier, cost, p)) for name, p in bids)
    proof = frontier.proof_of([p for _, p in bids])
    heads = "<th class=num>price</th>" + (
        "<th class=num>cost</th><th class=num>margin</th>" if cost is not None else ""
    )
    return (
        '<section id="three-bids"><h2>Three bids: cheapest, knee, fastest</h2>'
        f"<p>The same runs priced for three times to train, {escape(proof)}: "
        "the cheapest plan, the fastest plan ftopt can build, and the knee of the "
        f"{len(frontier.points)}-point frontier between them (the point farthest from the line "
        "joining the two).</p>"
        + (
            "<p>Seller's copy: each bid at its sell price, with its cost (the catalogue's prices) and "
            "the margin between them, before any discount.</p>"
            if cost is not None
            else ""
        )
        + _cut_short_note(frontier)
        + f"<div class=wide><table><thead><tr><th>bid</th>{heads}<th class=num>TCO</th>"
        f"<th class=num>{escape(frontier.hours_label)}</th><th>status</th><th>servers</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
        f'<div class="diagram">{frontier_svg(frontier)}</div></section>'
    )


def _cut_short_note(frontier: Frontier) -> str:
    """A sentence when the time limit ended the search: faster plans may exist than the "fastest"."""
    if frontier.stopped != "budget":
        return ""
    return (
        f"<p class=note>The time limit ended this frontier after {frontier.solves} solves: a faster plan "
        "than the one shown as fastest may exist; <code>ftopt frontier</code> or a longer "
        "<code>--time-limit</code> finds the rest.</p>"
    )


def render_frontier_html(frontier: Frontier, title: str) -> str:
    """A self-contained page in the shared shell: the chart and a table of every point."""
    currency = frontier.points[0].plan.currency if frontier.points else ""
    rows = [
        [str(i), f"{p.makespan_hours:,.2f}", escape(money(p.total_price, currency)),
         escape(money(p.tco, currency)) if p.tco is not None else "—", escape(p.status.value),
         escape("; ".join(p.servers()))]
        for i, p in enumerate(frontier.points, start=1)
    ]  # fmt: skip
    headers = [("#", True), (frontier.hours_label, True), ("price", True), ("TCO", True), ("status", False),
               ("servers", False)]  # fmt: skip
    subtitle = escape(
        f"{value_label(frontier)} against makespan, {frontier.solves} solves in {frontier.seconds:.2f} s, "
        f"stopped: {frontier.stopped}"
    )
    body = (
        f'<section class="diagram">{frontier_svg(frontier)}</section>'
        f"<section><h2>Points</h2>{table(headers, rows)}</section>"
    )
    return page(title, body, subtitle)
