"""The plan as a spreadsheet quote: a summary, one sheet per group, runs, power, TCO, options.

Why formulas and not numbers: a presales engineer edits a unit price, a quantity or the energy price
in the workbook (a discount, a spare card, the buyer's tariff) and expects every total to follow, as
in any quote they group by hand. Each group sheet lists one server's bill of materials with
`Price = Quantity × Unit price` and a `SUM` total; the summary multiplies each group's total by how
many servers it has and sums them, less the buyer's discount; the runs sheet computes hours from
training tokens and speed and energy from copies; the power sheet sets each server's draw against its
feed; the TCO sheet adds the energy of the servers' draw over the years to the summary's total; a
queue bid's schedule sheet says when each job runs, and the buy-or-rent sheet prices the training
hours at cloud rates (cost, totals and break-even as formulas) when the rent covers the same runs and
hours as the purchase. The per-copy placement and the solver's figures are sheets of their own.

Why XlsxWriter: every formula is written with its value cached beside it, so a preview that does not
recalculate (a mail client, a file browser, a viewer on a phone) shows the totals, not empty cells;
openpyxl cannot write cached values. The values are the plan's own figures, computed here the way the
formula computes them. XlsxWriter is imported only when a workbook is written.

Text the user's words or a catalogue can reach is always written as a string; a string that starts
like a formula (`=`, `+`, `-`, `@`) gets Excel's quote-prefix *style*, so it shows as typed, with no
visible apostrophe, and stays text when the cell is edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Assignment, LineItem, Plan, RunSummary
from ftopt.model.summary import PlanSummary, link_words, method_words
from ftopt.model.timing import HOURS_PER_YEAR
from ftopt.quote.blocks import Block, quote_blocks
from ftopt.quote.escape import FORMULA_START
from ftopt.quote.racks import RACK_COLUMNS, rack_rows, racks_note
from ftopt.quote.view import (
    ALTERNATIVE_HEADERS,
    HEADROOM_NOTE,
    alternative_rows,
    buyer_lines,
    figure_lines,
    internals,
    run_rows,
    server_groups,
    summary_of,
    supplies_fitted,
)

MONEY = "#,##0.00"
BOM_HEADERS = ("Item", "Name", "Quantity", "Unit price", "Price")
PLACEMENT_HEADERS = ("Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)", "Link")
SUMMARY_HEADERS = ("Sheet", "Servers", "Chassis", "GPUs per server", "CPUs per server", "RAM (GB)",
                   "Quantity", "Price per server", "Price")  # fmt: skip
RUNS_HEADERS = ("Run", "Model", "Method", "Copies", "GPUs per copy", "Training tokens per copy",
                "Tokens/s per copy", "Hours", "Deadline (h)", "Deadline met", "Energy per copy (kWh)",
                "Energy (kWh)", "Energy cost", "Failure overhead counted", "Spread factor",
                "Hours at the deadline confidence", "Deadline confidence", "Hours with failures", "P50 hours",
                "P90 hours", "Checkpoint interval (h)", "Expected interruptions")  # fmt: skip
POWER_HEADERS = ("Sheet", "Quantity", "Power per server (W)", "Feed", "Usable per feed (W)", "Share of feed",
                 "Headroom (W)", "Within the feed", "Power (W)", "Supplies", "Supplies' load (W)",
                 "Supplies carry, redundant ones failed (W)", "Parts' estimate (W)",
                 "Vendor's published maximum (W)", "Planned with")  # fmt: skip
SHEET_NAME_MAX = 31
HEADROOM_HEADERS = ("Run", "Copies", "Card", "GPUs per copy", "Memory per GPU (GB)", "Free per GPU (GB)",
                    "Free (% of memory)", "Margin (%)", "Measured error (%)", "Margin's basis",
                    "Beyond the margin (GB)")  # fmt: skip
SCHEDULE_HEADERS = ("Run", "Job", "Server", "GPUs", "Start (h)", "End (h)")
RENT_HEADERS = ("Card", "Kind", "Provider", "Offer", "Match", "GPU-hours", "Per GPU-hour", "Cost", "Source",
                "Read")  # fmt: skip
#: Hours in an average month, for the break-even (8,760 / 12).
MONTH_HOURS = 730


@dataclass(frozen=True)
class Formula:
    """A cell the workbook computes: the formula, and the value it gives on the plan's figures
    (cached in the file for previews that do not recalculate)."""

    text: str
    value: float | bool | str


class Sheet:
    """One worksheet written row by row, with the book's formats; rows count from 1, as in Excel."""

    def __init__(self, book: Any, title: str, formats: dict[str, Any]) -> None:
        self.sheet = book.add_worksheet(title)
        self.title = title
        self.formats = formats
        self.row = 0  # the last row written (1-based); 0 before the first

    def put(self, values: list[Any], styles: dict[int, str] | None = None, bold: bool = False) -> int:
        """Append a row; `styles` maps a 1-based column to a number format name. Returns its row."""
        self.row += 1
        for column, value in enumerate(values, start=1):
            self.cell(self.row, column, value, (styles or {}).get(column), bold)
        return self.row

    def cell(self, row: int, column: int, value: Any, style: str | None = None, bold: bool = False) -> None:
        """Write one cell: a formula with its cached value, a number, a truth value, or text."""
        r, c = row - 1, column - 1
        fmt = self.formats[(style or "plain") + (" bold" if bold else "")]
        if value is None:
            self.sheet.write_blank(r, c, None, fmt)
        elif isinstance(value, Formula):
            self.sheet.write_formula(r, c, value.text, fmt, value.value)
        elif isinstance(value, bool):
            self.sheet.write_boolean(r, c, value, fmt)
        elif isinstance(value, int | float):
            self.sheet.write_number(r, c, value, fmt)
        else:
            text = str(value)
            if text.startswith(FORMULA_START):
                fmt = self.formats["text" + (" bold" if bold else "")]
            self.sheet.write_string(r, c, text, fmt)

    def widths(self, widths: tuple[int, ...]) -> None:
        for index, width in enumerate(widths):
            self.sheet.set_column(index, index, width)


def _formats(book: Any) -> dict[str, Any]:
    """The book's cell formats: plain, money, percent, one decimal, quote-prefixed text; each bold too."""
    base: dict[str, dict[str, Any]] = {
        "plain": {},
        "money": {"num_format": MONEY},
        "percent": {"num_format": "0%"},
        "tenths": {"num_format": "0.0"},
        "text": {"quote_prefix": True},
    }
    formats: dict[str, Any] = {}
    for name, props in base.items():
        formats[name] = book.add_format(props)
        formats[name + " bold"] = book.add_format({**props, "bold": True})
    return formats


def _sheet_ref(title: str) -> str:
    """A sheet name as a formula names it: quoted, with quotes doubled."""
    return "'" + title.replace("'", "''") + "'"


def group_sheet_names(plan: Plan) -> list[str]:
    """A sheet name per group: its server ids (`s1`, `s2–s9`), or `group N` when they are too long."""
    names = []
    for i, group in enumerate(server_groups(plan), start=1):
        name = group.ids
        ok = len(name) <= SHEET_NAME_MAX and not any(c in name for c in "[]:*?/\\'")
        names.append(name if ok else f"group {i}")
    return names


def _bill_total(lines: list[LineItem]) -> float:
    return sum(line.quantity * line.unit_price for line in lines)


def _bill_sheet(book: Any, formats: dict[str, Any], title: str, lines: list[LineItem], currency: str) -> None:
    """A bill of materials sheet: price = quantity × unit price, and their sum."""
    sheet = Sheet(book, title, formats)
    sheet.put(list(BOM_HEADERS), bold=True)
    for line in lines:
        row = sheet.row + 1
        price = Formula(f"=C{row}*D{row}", line.quantity * line.unit_price)
        sheet.put([line.item, line.name, line.quantity, line.unit_price, price], {4: "money", 5: "money"})
    last = len(lines) + 1
    total = Formula(f"=SUM(E2:E{last})" if lines else "=0", _bill_total(lines))
    sheet.put([None, None, None, f"Total {currency}", total], {5: "money"}, bold=True)
    sheet.widths((22, 60, 10, 14, 16))


def _summary_head(sheet: Sheet, plan: Plan, summary: PlanSummary) -> None:
    """The quote's title, headline, buyer's details, key figures and proof, above the server table."""
    sheet.put(["Quote", plan.workload or "workload"], bold=True)
    sheet.put([summary.headline])
    for label, value in [*buyer_lines(summary), ("Status", plan.status.value), ("Currency", plan.currency),
                         ("Price list", plan.price_list), *figure_lines(summary)]:  # fmt: skip
        sheet.put([label, value])
    sheet.put([summary.proof])
    if summary.rent is not None and not summary.rent.comparable:
        sheet.put([summary.rent.words])
    sheet.put([])


def _summary(book: Any, formats: dict[str, Any], plan: Plan, summary: PlanSummary, names: list[str]) -> str:
    """The summary sheet: one row per group (quantity × server total), the fabric, the total and
    the price to pay after the buyer's discount. Returns the total's cell."""
    sheet = Sheet(book, "Summary", formats)
    _summary_head(sheet, plan, summary)
    sheet.put(list(SUMMARY_HEADERS), bold=True)
    first, total = sheet.row + 1, 0.0
    money = {8: "money", 9: "money"}
    for name, group in zip(names, server_groups(plan), strict=True):
        s, row, each = group.server, sheet.row + 1, _bill_total(group.server.bill_of_materials)
        ref = Formula(f"={_sheet_ref(name)}!E{len(s.bill_of_materials) + 2}", each)
        sheet.put([name, group.ids, s.chassis, f"{s.gpu_count} × {s.gpu}", f"{s.cpu_count} × {s.cpu}",
                   s.ram_gb, group.quantity, ref, Formula(f"=G{row}*H{row}", group.quantity * each)],
                  money)  # fmt: skip
        total += group.quantity * each
    if plan.fabric is not None:
        row, each = sheet.row + 1, _bill_total(plan.fabric.bill_of_materials)
        ref = Formula(f"={_sheet_ref('Fabric')}!E{len(plan.fabric.bill_of_materials) + 2}", each)
        sheet.put(["Fabric", "", "switches and cables", "", "", "", 1, ref, Formula(f"=G{row}*H{row}", each)],
                  money)  # fmt: skip
        total += each
    last = sheet.row
    cell = Formula(f"=SUM(I{first}:I{last})" if last >= first else "=0", total)
    total_row = sheet.put(["Total", "", "", "", "", "", "", "", cell], money, bold=True)
    if summary.discount_percent:
        sheet.put(["Discount (%)", "", "", "", "", "", "", "", summary.discount_percent])
        pay = Formula(f"=I{total_row}-ROUND(I{total_row}*I{total_row + 1}/100,2)", summary.price_to_pay)
        sheet.put(["Price to pay", "", "", "", "", "", "", "", pay], money, bold=True)
    sheet.widths((24, 14, 28, 24, 24, 10, 10, 18, 18))
    return f"I{total_row}"


def _sheet_hours(hours: Formula | None) -> float | None:
    return float(hours.value) if hours is not None and isinstance(hours.value, int | float) else None


def _runs(book: Any, formats: dict[str, Any], plan: Plan) -> None:
    """Hours from training tokens and speed, energy from copies, one row per run and way of training."""
    sheet = Sheet(book, "Runs", formats)
    sheet.put(list(RUNS_HEADERS), bold=True)
    kwh_price = plan.tco.price_per_kwh if plan.tco is not None else None
    for r in run_rows(plan):
        row, a = sheet.row + 1, r.first
        tokens = r.run.train_tokens if r.run else None
        deadline = r.run.deadline_hours if r.run else None
        hours, held, met = _hours_cells(row, tokens, a, r.run)
        energy, cost = _energy_cells(row, len(r.copies), a.energy_kwh, kwh_price)
        method, model = (method_words(r.run), r.run.model) if r.run else ("", "")
        gpus = f"{r.gpus_per_copy} × {r.card}"
        styles = {8: "tenths", 13: "money", 16: "tenths", 18: "tenths", 19: "tenths", 20: "tenths"}
        sheet.put([r.name, model, method, len(r.copies), gpus, tokens, a.tokens_per_s, hours, deadline, met,
                   a.energy_kwh, energy, cost, *_spread_cells(a, r.run, held, _sheet_hours(hours))],
                  styles)  # fmt: skip
    sheet.widths((24, 18, 18, 8, 22, 16, 14, 10, 12, 12, 14, 14, 14, 12, 12, 16, 12, 14, 10, 10, 12, 12))


def _overhead_and_factor(
    a: Assignment, run: RunSummary | None, sheet_hours: float | None = None
) -> tuple[float, float] | None:
    """The failure overhead the deadline counts (every copy's, on its servers' drives) and the spread
    factor at the run's deadline confidence, read back from the copy's stated hours; None without.
    The factor is taken against the hours the sheet computes (`sheet_hours`, tokens / speed) where
    there are some, so that the sheet's held hours are the plan's own figure, not one 0.01 h off
    because the plan's stated hours were rounded before the factor was read back."""
    at = a.hours_at(run.deadline_confidence if run else None)
    base = sheet_hours if sheet_hours else a.hours
    if base is None or not base or at is None or a.hours_p90 is None:
        return None
    overhead = a.failure_overhead or 0.0
    return overhead, at / (base * (1 + overhead))


def _held_hours(a: Assignment, run: RunSummary | None, hours: float | None) -> float | None:
    """Hours at the deadline confidence: hours × (1 + counted failure overhead) × spread factor."""
    found = _overhead_and_factor(a, run, hours)
    if found is None or hours is None:
        return None
    overhead, factor = found
    return hours * (1 + overhead) * factor


def _spread_cells(
    a: Assignment, run: RunSummary | None, held: Formula | None, sheet_hours: float | None = None
) -> list[object]:
    """Columns N to V of a run row: overhead, factor, held hours, confidence, and the stated figures."""
    found = _overhead_and_factor(a, run, sheet_hours)
    overhead, factor = found if found is not None else (None, None)
    confidence = run.deadline_confidence if run else None
    return [overhead, factor, held, confidence, a.hours_with_failures, a.hours_p50, a.hours_p90,
            a.checkpoint_interval_h, a.expected_interruptions]  # fmt: skip


def _hours_cells(
    row: int, tokens: int | None, a: Assignment, run: RunSummary | None
) -> tuple[Formula | None, Formula | None, Formula | None]:
    """A run row's hours (tokens / speed, as a formula over its cells), its hours at the deadline
    confidence, and whether those meet the deadline; each None where a figure it needs is missing."""
    hours_value = tokens / a.tokens_per_s / 3600 if tokens is not None and a.tokens_per_s else None
    hours = Formula(f"=F{row}/G{row}/3600", hours_value) if hours_value is not None else None
    held_value = _held_hours(a, run, hours_value)
    if held_value is None:
        return hours, None, None
    held = Formula(f"=H{row}*(1+N{row})*O{row}", held_value)
    deadline = run.deadline_hours if run else None
    met = Formula(f"=P{row}<=I{row}", held_value <= deadline) if deadline is not None else None
    return hours, held, met


def _energy_cells(
    row: int, copies: int, per_copy: float | None, kwh_price: float | None
) -> tuple[Formula | None, Formula | None]:
    """A run row's energy (copies × each copy's kWh) and its cost at the TCO sheet's kWh price."""
    if per_copy is None:
        return None, None
    energy = Formula(f"=D{row}*K{row}", copies * per_copy)
    cost = Formula(f"=L{row}*TCO!B6", copies * per_copy * kwh_price) if kwh_price is not None else None
    return energy, cost


def _power(book: Any, formats: dict[str, Any], plan: Plan, names: list[str]) -> str:
    """Each group's draw per server against the usable watts of its feed; returns the total's cell."""
    sheet = Sheet(book, "Power", formats)
    sheet.put(list(POWER_HEADERS), bold=True)
    total = 0
    for name, group in zip(names, server_groups(plan), strict=True):
        s, row = group.server, sheet.row + 1
        share = Formula(f"=C{row}/E{row}", s.power_w / s.feed_usable_w)
        headroom = Formula(f"=E{row}-C{row}", s.feed_usable_w - s.power_w)
        within = Formula(f"=C{row}<=E{row}", s.power_w <= s.feed_usable_w)
        power = Formula(f"=B{row}*C{row}", group.quantity * s.power_w)
        supplies = [supplies_fitted(s), s.psu_load_w, s.psu_capacity_w] if s.psu_count else ["", "", ""]
        basis = [s.parts_power_w or "", s.vendor_max_w or "", s.power_basis if s.parts_power_w else ""]
        sheet.put([name, group.quantity, s.power_w, s.feed, s.feed_usable_w, share, headroom, within, power,
                   *supplies, *basis], {6: "percent"})  # fmt: skip
        total += group.quantity * s.power_w
    last = sheet.row
    cell = Formula(f"=SUM(I2:I{last})" if last >= 2 else "=0", total)
    row = sheet.put(["Total", "", "", "", "", "", "", "", cell], bold=True)
    sheet.widths((14, 10, 20, 14, 20, 14, 14, 16, 14, 20, 18, 22, 16, 18, 16))
    return f"I{row}"


def _tco(book: Any, formats: dict[str, Any], plan: Plan, total: str, power_total: str) -> None:
    """Purchase plus the servers' energy at full-load draw over the years."""
    t = plan.tco
    if t is None:
        return
    sheet = Sheet(book, "TCO", formats)
    purchase = plan.total_price
    power = sum(s.power_w for s in plan.servers)
    kwh = power * t.utilisation * t.years * HOURS_PER_YEAR * t.pue / 1000
    rows: list[tuple[list[Any], str | None]] = [
        (["Purchase", Formula(f"=Summary!{total}", purchase)], "money"),
        (["Full-load power (W)", Formula(f"=Power!{power_total}", power)], None),
        (["Utilisation", t.utilisation], None),
        (["Years", t.years], None),
        (["PUE", t.pue], None),
        ([f"Energy price ({plan.currency}/kWh)", t.price_per_kwh], None),
        (["Energy (kWh)", Formula(f"=B2*B3*B4*{HOURS_PER_YEAR:g}*B5/1000", kwh)], None),
        (["Energy cost", Formula("=B7*B6", kwh * t.price_per_kwh)], "money"),
        (["Total cost of ownership", Formula("=B1+B8", purchase + kwh * t.price_per_kwh)], "money"),
    ]
    for values, style in rows:
        sheet.put(values, {2: style} if style else None, bold=sheet.row == 8)
    sheet.widths((28, 18))


def _options(book: Any, formats: dict[str, Any], summary: PlanSummary) -> None:
    """The next cheapest bids as numbers: price to pay and the extra over option 1 (the summary's)."""
    rows = alternative_rows(summary)
    if not rows:
        return
    sheet = Sheet(book, "Options", formats)
    sheet.put(list(ALTERNATIVE_HEADERS), bold=True)
    for row, alt in zip(rows, summary.alternatives, strict=True):
        sheet.put([row[0], alt.price_to_pay, alt.more_to_pay, *row[3:]], {2: "money", 3: "money"})
    sheet.widths((12, 16, 18, 24, 80, 60))


def _placement(book: Any, formats: dict[str, Any], plan: Plan) -> None:
    sheet = Sheet(book, "Placement", formats)
    sheet.put(list(PLACEMENT_HEADERS), bold=True)
    for a in plan.assignments:
        link = link_words(plan, a) or "—"
        sheet.put([a.run, a.copy_, a.server, a.gpus_text, str(a.strategy), a.memory_per_gpu_gb.total, link])
    sheet.widths((24, 8, 10, 18, 10, 20, 16))


def _headroom(book: Any, formats: dict[str, Any], plan: Plan, summary: PlanSummary) -> None:
    """Each copy's memory left free against its planning margin (the summary's headroom lines); the
    free share is a formula of the free and counted memory. The measured error is filled only where
    the workload forced a tighter margin, and the plan's tight-margin notes follow the table."""
    if not summary.headroom:
        return
    sheet = Sheet(book, "Headroom", formats)
    sheet.put([HEADROOM_NOTE])
    sheet.put(list(HEADROOM_HEADERS), bold=True)
    for h in summary.headroom:
        row = sheet.row + 1
        exact = 100 * h.free_gb / h.memory_gb if h.memory_gb > 0 else h.free_percent
        share = Formula(f"=F{row}/E{row}*100", exact) if h.memory_gb > 0 else h.free_percent
        sheet.put([h.run, h.copies, h.card, h.gpus, h.memory_gb, h.free_gb, share, h.margin_percent,
                   h.measured_percent, h.basis, h.headroom_gb],
                  {2: "text", 5: "tenths", 6: "tenths", 7: "tenths", 11: "tenths"})  # fmt: skip
    for note in (n for n in plan.notes if n.kind == FindingKind.TIGHT_MARGIN):
        sheet.put([note.text])
    sheet.widths((24, 10, 18, 12, 14, 14, 14, 10, 14, 44, 16))


def _schedule(book: Any, formats: dict[str, Any], summary: PlanSummary) -> None:
    """A queue bid's jobs in start order: run, number, servers, GPUs, start and end hours."""
    if not summary.schedule:
        return
    sheet = Sheet(book, "Schedule", formats)
    sheet.put(list(SCHEDULE_HEADERS), bold=True)
    for job in summary.schedule:
        sheet.put([job.run, job.job, job.servers, job.gpus, job.start_hours, job.end_hours],
                  {5: "tenths", 6: "tenths"})  # fmt: skip
    sheet.widths((24, 8, 10, 18, 12, 12))


def _rent(book: Any, formats: dict[str, Any], plan: Plan, summary: PlanSummary, total: str) -> None:
    """The plan's GPU-hours at each cloud rate, cost = GPU-hours × rate as formulas, totals per kind,
    and (queue plans) the break-even: purchase / on-demand rent per horizon × horizon / 730 h. Only
    when the rent covers the same runs and hours as the purchase (the summary says why not)."""
    rent = plan.rent
    if rent is None or summary.rent is None or not summary.rent.comparable:
        return
    sheet = Sheet(book, "Buy or rent", formats)
    sheet.put(list(RENT_HEADERS), bold=True)
    for s in rent.sources:
        row = sheet.row + 1
        cost = Formula(f"=F{row}*G{row}", s.gpu_hours * s.usd_per_gpu_hour)
        sheet.put([s.card, s.kind, s.provider, s.offer, s.match, s.gpu_hours, s.usd_per_gpu_hour, cost, s.url,
                   s.read], {8: "money"})  # fmt: skip
    last = len(rent.sources) + 1
    _rent_totals(sheet, plan, total, last)
    sheet.put([f"Cloud rates read by ftopt on {rent.read_by_ftopt}; each row gives its address and date."])
    sheet.widths((16, 11, 12, 44, 9, 12, 12, 16, 50, 12))


def _rent_totals(sheet: Sheet, plan: Plan, total: str, last: int) -> None:
    """On demand, committed and purchase totals, and the break-even of a queue plan."""
    rent = plan.rent
    assert rent is not None
    blanks = ["", "", "", "", "", ""]

    def by_kind(kind: str) -> float:
        return sum(s.gpu_hours * s.usd_per_gpu_hour for s in rent.sources if s.kind == kind)

    sheet.put([])
    demand = by_kind("on-demand")
    on_demand = sheet.put(["Rent on demand", *blanks, Formula(f'=SUMIF(B2:B{last},"on-demand",H2:H{last})',
                                                               demand)], {8: "money"}, bold=True)  # fmt: skip
    committed: Any = (
        Formula(f'=SUMIF(B2:B{last},"committed",H2:H{last})', by_kind("committed"))
        if rent.committed_cost is not None
        else "no committed rate published for every card"
    )
    sheet.put(["Rent committed", *blanks, committed], {8: "money"}, bold=True)
    purchase = sheet.put(["Purchase", *blanks, Formula(f"=Summary!{total}", plan.total_price)], {8: "money"},
                         bold=True)  # fmt: skip
    if plan.horizon_hours and demand > 0:
        horizon = sheet.put(["Horizon (h)", *blanks, plan.horizon_hours])
        months = plan.total_price / demand * plan.horizon_hours / MONTH_HOURS
        formula = Formula(f"=H{purchase}/H{on_demand}*H{horizon}/{MONTH_HOURS}", months)
        sheet.put(["Break-even (months)", *blanks, formula], {8: "tenths"}, bold=True)


def _racks(book: Any, formats: dict[str, Any], plan: Plan) -> None:
    """The racks table every other format shows: units used and the load on each circuit."""
    if not plan.racks:
        return
    sheet = Sheet(book, "Racks", formats)
    sheet.put([h for h, _ in RACK_COLUMNS], bold=True)
    for row in rack_rows(plan):
        sheet.put(list(row))
    sheet.put([racks_note(plan)])
    sheet.widths((14, 12, 12, 16, 24, 10, 10, 8))


def _block_sheet(book: Any, formats: dict[str, Any], block: Block) -> None:
    """One block of the quote (commercial lines, facility sheet) as a sheet of the cells every format
    prints: its sentence, its columns, its rows and, in bold, its closing rows."""
    sheet = Sheet(book, block.title[:SHEET_NAME_MAX], formats)
    sheet.put([block.note])
    sheet.put([header for header, _ in block.columns], bold=True)
    for row in block.rows:
        sheet.put(list(row))
    for row in block.foot:
        sheet.put(list(row), bold=True)
    sheet.widths(tuple(60 if i == 0 else 16 for i in range(len(block.columns))))


def _explanation(book: Any, formats: dict[str, Any], summary: PlanSummary) -> None:
    """What shaped the answer and the rules and defaults applied, the sentences every other format
    lists, one a row under its heading (the workbook had none of them)."""
    sheet = Sheet(book, "Explanation", formats)
    sections = (("What shaped the answer", summary.shaped), ("Rules and defaults applied", summary.rules))
    for title, items in sections:
        sheet.put([title], bold=True)
        for item in items:
            sheet.put([item.text])
    sheet.widths((160,))


def _technical(book: Any, formats: dict[str, Any], plan: Plan) -> None:
    sheet = Sheet(book, "Technical", formats)
    for label, value in internals(plan):
        sheet.put([label, value])
    sheet.widths((20, 100))


def write_xlsx(plan: Plan, path: Path, internals: bool = True, summary: PlanSummary | None = None) -> None:
    """Write the quote workbook to `path`; without `internals`, no Placement or Technical sheet."""
    import xlsxwriter

    summary = summary_of(plan, summary)
    book = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False, "strings_to_numbers": False})
    formats = _formats(book)
    names = group_sheet_names(plan)
    total = _summary(book, formats, plan, summary, names)
    for name, group in zip(names, server_groups(plan), strict=True):
        _bill_sheet(book, formats, name, group.server.bill_of_materials, plan.currency)
    if plan.fabric is not None:
        _bill_sheet(book, formats, "Fabric", plan.fabric.bill_of_materials, plan.currency)
    _runs(book, formats, plan)
    _headroom(book, formats, plan, summary)
    power_total = _power(book, formats, plan, names)
    _tco(book, formats, plan, total, power_total)
    _racks(book, formats, plan)
    _schedule(book, formats, summary)
    _rent(book, formats, plan, summary, total)
    _options(book, formats, summary)
    for block in quote_blocks(plan, summary):
        _block_sheet(book, formats, block)
    _explanation(book, formats, summary)
    if internals:
        _placement(book, formats, plan)
        _technical(book, formats, plan)
    book.close()
