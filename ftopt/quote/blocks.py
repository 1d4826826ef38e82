"""The quote's blocks that every format lays out the same way: built once from the plan summary.

Why blocks: a format should only choose how a table looks, never which rows it has or how a figure
is worded; a block is a title, a sentence, columns, rows and closing rows, all text already, so the
terminal table, Markdown, HTML, PDF and the workbook print the same cells. The commercial lines
(`commercial_block`) and the facility sheet (`facility_block`) are blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ftopt.model.commercial import Commercial
from ftopt.model.facility import Facility, FacilityRow
from ftopt.model.findings import money
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary
from ftopt.quote.elevation import elevation_svg
from ftopt.quote.view import id_ranges


@dataclass(frozen=True)
class Block:
    """One table of the quote: id (the HTML section's), title, a sentence, columns (label, numeric),
    rows and closing rows (totals), every cell text."""

    id: str
    title: str
    note: str
    columns: tuple[tuple[str, bool], ...]
    rows: tuple[tuple[str, ...], ...]
    foot: tuple[tuple[str, ...], ...] = field(default=())
    figure: str = ""  # an SVG drawing of the block, for the formats that draw (HTML, PDF)


def _weeks(weeks: float | None) -> str:
    return f"{weeks:g} weeks" if weeks is not None else "not stated"


def _commercial_columns(seller: bool) -> tuple[tuple[str, bool], ...]:
    columns = [("line", False), ("servers", False), ("qty", True), ("unit price", True), ("price", True)]
    if seller:
        columns += [("unit cost", True), ("cost", True), ("margin", True)]
    return (*columns, ("lead time", True), ("delivery", True))


def _id_text(ids: tuple[str, ...]) -> str:
    return id_ranges(list(ids))


def _line_rows(block: Commercial, seller: bool) -> list[tuple[str, ...]]:
    c = block.currency
    rows = []
    for line in block.lines:
        cells = [line.description, _id_text(line.servers), str(line.quantity), money(line.unit_price, c),
                 money(line.price, c)]  # fmt: skip
        if seller:
            cells += [
                money(line.unit_cost or 0.0, c),
                money(line.cost or 0.0, c),
                money(line.margin or 0.0, c),
            ]
        cells += [_weeks(line.lead_weeks), line.delivery.isoformat() if line.delivery else "—"]
        rows.append(tuple(cells))
    for s in block.services:
        per = f"{s.quantity} server{'s' if s.quantity != 1 else ''}" if s.per == "server" else "the bid"
        years = f" × {s.years:g} years" if s.years else ""
        cells = [f"{s.name} ({money(s.unit_price, c)} per {s.per}{' per year' if s.years else ''})",
                 f"{per}{years}", str(s.quantity), money(s.unit_price, c), money(s.price, c)]  # fmt: skip
        rows.append(tuple(cells + ["", "", ""] * seller + ["", ""]))
    return rows


def _foot(block: Commercial, width: int, seller: bool) -> list[tuple[str, ...]]:
    c = block.currency

    def row(label: str, amount: float, *rest: str) -> tuple[str, ...]:
        cells = [label, "", "", "", money(amount, c)] + [""] * (width - 5)
        for i, value in enumerate(rest):
            cells[5 + i] = value
        return tuple(cells)

    out = [row("Hardware", block.hardware)]
    if block.discount:
        out.append(row(f"Discount {block.discount_percent:g} % on hardware", -block.discount))
    if block.services_total:
        out.append(row("Services", block.services_total))
    if block.shipping:
        out.append(row("Shipping", block.shipping))
    out.append(row("Subtotal", block.subtotal))
    if block.tax_percent:
        out.append(row(f"Tax {block.tax_percent:g} %", block.tax))
    out.append(row("Total to pay", block.total))
    if seller and block.cost is not None and block.margin is not None:
        out.append(row("Cost of the hardware", block.cost))
        out.append(row("Margin after discount", block.margin))
    return out


def commercial_block(summary: PlanSummary) -> Block | None:
    """The commercial lines: identical hardware as one line, services, then hardware, discount,
    services, shipping, subtotal, tax and total; the seller's copy adds cost and margin per line."""
    block = summary.commercial
    if block is None:
        return None
    seller = block.copy_for == "seller" and block.margin_percent is not None
    columns = _commercial_columns(seller)
    if block.margin_percent is not None and seller:
        note = (
            f"Seller's copy: catalogue prices are the cost, each line sells at cost × "
            f"{1 + block.margin_percent / 100:g}; the discount is on hardware only, tax on the subtotal."
        )
    else:
        note = "The discount is on hardware only; tax is on the subtotal."
    delivery = f" Delivery by {block.delivery.isoformat()}." if block.delivery else ""
    return Block(
        id="commercial",
        title="Commercial lines",
        note=note + delivery,
        columns=columns,
        rows=tuple(_line_rows(block, seller)),
        foot=tuple(_foot(block, len(columns), seller)),
    )


def facility_columns(facility: Facility) -> tuple[tuple[str, bool], ...]:
    """The facility table's headings; the average's is the summary's own (`Facility.average_label`)."""
    return (
        ("rack", False), ("servers", False), ("rack units", True), ("wall W at maximum", True),
        (facility.average_label, True), ("heat kW", True), ("heat BTU/h", True), ("airflow CFM", True),
        ("weight kg", True),
    )  # fmt: skip


def _partial(total: str, lacking: int, servers: int) -> str:
    """A sum over the servers that have a published figure, saying how many it leaves out."""
    if lacking == 0:
        return total
    if lacking == servers:
        return f"— (not published for any of {servers} servers)"
    return f"{total} (for {servers - lacking} of {servers} servers; {lacking} not published)"


def _facility_row(row: FacilityRow) -> tuple[str, ...]:
    units = f"{row.rack_units} of {row.units_available} U" if row.units_available else f"{row.rack_units} U"
    count = len(row.servers)
    airflow = _partial(
        f"{row.airflow_cfm:,}" if row.airflow_cfm is not None else "", row.airflow_lacking, count
    )
    weight = _partial(f"{row.weight_kg:,.2f}" if row.weight_kg is not None else "", row.weight_lacking, count)
    power = (
        f"{row.power_max_w:,}",
        f"{row.power_years_average_w:,}",
        f"{row.heat_kw:,.2f}",
        f"{row.heat_btu_h:,}",
    )
    return (row.name, id_ranges(list(row.servers)), units, *power, airflow, weight)


def facility_block(facility: Facility) -> Block:
    """Per rack and for the bid: rack units, wall power at maximum and averaged over the years, heat,
    airflow, weight; a sum that leaves servers out says how many and names their chassis."""
    note = (
        f"For the facility team: {facility.power_note} All of it leaves as heat (1 W = 3.412142 BTU/h). "
        "Airflow and weight are the chassis' published figures."
    )
    if facility.bid.missing:
        note += " Not published for: " + ", ".join(facility.bid.missing) + "."
    if facility.sources:
        # each source is a sentence of the catalogue's, some ending in a full stop: one stop each
        note += " Sources: " + "; ".join(src.rstrip(". ") for src in facility.sources) + "."
    return Block(
        id="facility",
        title="Facility sheet",
        note=note,
        columns=facility_columns(facility),
        rows=tuple(_facility_row(r) for r in facility.racks),
        foot=(_facility_row(facility.bid),),
        figure=elevation_svg(facility),
    )


def weighed_block(summary: PlanSummary) -> Block | None:
    """What the plan buys at a cost large against what it buys, one sentence with both figures a row;
    None when nothing is flagged."""
    if not summary.weighed:
        return None
    return Block(
        id="weighed",
        title="Weighed against what it buys",
        note="What this plan buys at a cost large against the hours, money or risk it buys, or buying "
        "against renting far apart, each with both figures, for the buyer to weigh.",
        columns=(("flagged", False),),
        rows=tuple((text,) for text in summary.weighed),
    )


def quote_blocks(plan: Plan, summary: PlanSummary) -> list[Block]:
    """The blocks every format prints after the key figures: commercial lines, the facility sheet,
    what is weighed against what it buys."""
    del plan  # every cell comes from the summary
    blocks = [commercial_block(summary)]
    if summary.facility is not None and summary.facility.servers:
        blocks.append(facility_block(summary.facility))
    blocks.append(weighed_block(summary))
    return [b for b in blocks if b is not None]
