"""The plan as a spreadsheet quote: a summary, one sheet per group, runs, power, TCO, options.

Why formulas and not numbers: a presales engineer edits a unit price, a quantity or the energy price
in the workbook (a discount, a spare card, the buyer's tariff) and expects every total to follow, as
in any quote they group by hand. Each group sheet lists one server's bill of materials with
`Price = Quantity × Unit price` and a `SUM` total; the summary multiplies each group's total by how
many servers it has and sums them; the runs sheet computes hours from training tokens and speed and
energy from copies; the power sheet sets each server's draw against its feed; the TCO sheet adds the
energy of the servers' draw over the years to the summary's total; a queue bid's schedule sheet says
when each job runs, and the buy-or-rent sheet prices the training hours at cloud rates (cost, totals
and break-even as formulas). The per-copy placement and the solver's figures are sheets of their own.
openpyxl is imported only when a workbook is written.

Every text cell the user's words or a catalogue can reach goes through `cell_text`, so no cell
starts like a formula; the workbook's own formulas are `Formula` values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ftopt.cli.render_escape import cell_text
from ftopt.cli.render_quote import (
    ALTERNATIVE_HEADERS,
    alternative_rows,
    internals,
    proof_words,
    run_rows,
    server_groups,
)
from ftopt.model.plan import LineItem, Plan
from ftopt.model.timing import HOURS_PER_YEAR

MONEY = "#,##0.00"
BOM_HEADERS = ("Item", "Name", "Quantity", "Unit price", "Price")
PLACEMENT_HEADERS = ("Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)")
SUMMARY_HEADERS = ("Sheet", "Servers", "Chassis", "GPUs per server", "CPUs per server", "RAM (GB)",
                   "Quantity", "Price per server", "Price")  # fmt: skip
RUNS_HEADERS = ("Run", "Model", "Copies", "GPUs per copy", "Training tokens per copy", "Tokens/s per copy",
                "Hours", "Deadline (h)", "Deadline met", "Energy per copy (kWh)", "Energy (kWh)",
                "Energy cost")  # fmt: skip
POWER_HEADERS = ("Sheet", "Quantity", "Power per server (W)", "Feed", "Usable per feed (W)", "Share of feed",
                 "Headroom (W)", "Within the feed", "Power (W)")  # fmt: skip
SHEET_NAME_MAX = 31
SCHEDULE_HEADERS = ("Run", "Job", "Server", "GPUs", "Start (h)", "End (h)")
RENT_HEADERS = ("Card", "Kind", "Provider", "Offer", "Match", "GPU-hours", "Per GPU-hour", "Cost", "Source",
                "Read")  # fmt: skip
#: Hours in an average month, for the break-even (8,760 / 12).
MONTH_HOURS = 730


class Formula(str):
    """A cell value the workbook computes: written as it is, never quoted."""


def _put(sheet: Any, values: list[Any]) -> None:
    """Append a row; text (but not formulas) is made inert."""
    sheet.append([v if isinstance(v, Formula) or not isinstance(v, str) else cell_text(v) for v in values])


def _sheet_ref(title: str) -> str:
    """A sheet name as a formula names it: quoted, with quotes doubled."""
    return "'" + title.replace("'", "''") + "'"


def _bold_row(sheet: Any, row: int) -> None:
    from openpyxl.styles import Font

    for cell in sheet[row]:
        cell.font = Font(bold=True)


def _widths(sheet: Any, widths: tuple[int, ...]) -> None:
    from openpyxl.utils import get_column_letter

    for index, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width


def _header(sheet: Any, headers: tuple[str, ...]) -> None:
    _put(sheet, list(headers))
    _bold_row(sheet, sheet.max_row)


def group_sheet_names(plan: Plan) -> list[str]:
    """A sheet name per group: its server ids (`s1`, `s2–s9`), or `group N` when they are too long."""
    names = []
    for i, group in enumerate(server_groups(plan), start=1):
        name = group.ids
        ok = len(name) <= SHEET_NAME_MAX and not any(c in name for c in "[]:*?/\\'")
        names.append(name if ok else f"group {i}")
    return names


def server_total_cells(plan: Plan) -> dict[str, str]:
    """Where each group sheet keeps one server's total: sheet name → cell."""
    return {
        name: f"E{len(group.server.bill_of_materials) + 2}"
        for name, group in zip(group_sheet_names(plan), server_groups(plan), strict=True)
    }


def _bill_sheet(book: Any, title: str, lines: list[LineItem], currency: str) -> str:
    """A bill of materials sheet; returns the cell of its total."""
    sheet = book.create_sheet(title)
    _header(sheet, BOM_HEADERS)
    for row, line in enumerate(lines, start=2):
        _put(sheet, [line.item, line.name, line.quantity, line.unit_price, Formula(f"=C{row}*D{row}")])
        sheet.cell(row, 4).number_format = MONEY
        sheet.cell(row, 5).number_format = MONEY
    last = len(lines) + 1
    sheet.cell(last + 1, 4, cell_text(f"Total {currency}"))
    sheet.cell(last + 1, 5, Formula(f"=SUM(E2:E{last})" if lines else "=0")).number_format = MONEY
    _bold_row(sheet, last + 1)
    _widths(sheet, (22, 60, 10, 14, 16))
    return f"E{last + 1}"


def _summary(book: Any, plan: Plan, names: list[str]) -> str:
    """The summary sheet: one row per group (quantity × server total), the fabric, the total.
    Returns the total's cell."""
    summary = book.worksheets[0]  # the sheet a new workbook has
    summary.title = "Summary"
    head = [
        ["Quote", plan.workload or "workload"],
        ["Status", plan.status.value],
        ["Currency", plan.currency],
    ]
    for row in [*head, ["Price list", plan.price_list], [proof_words(plan)], []]:
        _put(summary, row)
    _bold_row(summary, 1)
    _header(summary, SUMMARY_HEADERS)
    first = summary.max_row + 1
    for name, group in zip(names, server_groups(plan), strict=True):
        s, row = group.server, summary.max_row + 1
        total = f"={_sheet_ref(name)}!E{len(s.bill_of_materials) + 2}"
        _put(summary, [name, group.ids, s.chassis, f"{s.gpu_count} × {s.gpu}", f"{s.cpu_count} × {s.cpu}",
                       s.ram_gb, group.quantity, Formula(total), Formula(f"=G{row}*H{row}")])  # fmt: skip
    if plan.fabric is not None:
        row = summary.max_row + 1
        fabric = f"={_sheet_ref('Fabric')}!E{len(plan.fabric.bill_of_materials) + 2}"
        _put(summary, ["Fabric", "", "switches and cables", "", "", "", 1, Formula(fabric),
                       Formula(f"=G{row}*H{row}")])  # fmt: skip
    last = summary.max_row
    _put(
        summary,
        ["Total", "", "", "", "", "", "", "", Formula(f"=SUM(I{first}:I{last})" if last >= first else "=0")],
    )
    for r in range(first, summary.max_row + 1):
        summary.cell(r, 8).number_format = MONEY
        summary.cell(r, 9).number_format = MONEY
    _bold_row(summary, summary.max_row)
    _widths(summary, (14, 14, 28, 24, 24, 10, 10, 18, 18))
    return f"I{summary.max_row}"


def _runs(book: Any, plan: Plan) -> None:
    """Hours from training tokens and speed, energy from copies, one row per run and way of training."""
    sheet = book.create_sheet("Runs")
    _header(sheet, RUNS_HEADERS)
    for r in run_rows(plan):
        row, a = sheet.max_row + 1, r.first
        tokens = r.run.train_tokens if r.run else None
        deadline = r.run.deadline_hours if r.run else None
        timed = tokens is not None and a.tokens_per_s
        hours = Formula(f"=E{row}/F{row}/3600") if timed else None
        met = Formula(f"=G{row}<=H{row}") if timed and deadline is not None else None
        per_copy = a.energy_kwh
        energy = Formula(f"=C{row}*J{row}") if per_copy is not None else None
        cost = Formula(f"=K{row}*TCO!B6") if energy is not None and plan.tco is not None else None
        _put(sheet, [r.name, r.run.model if r.run else "", len(r.copies), f"{r.gpus_per_copy} × {r.card}",
                     tokens, a.tokens_per_s, hours, deadline, met, per_copy, energy, cost])  # fmt: skip
    _widths(sheet, (24, 18, 8, 22, 16, 14, 10, 12, 12, 14, 14, 14))


def _power(book: Any, plan: Plan, names: list[str]) -> None:
    """Each group's draw per server against the usable watts of its feed."""
    sheet = book.create_sheet("Power")
    _header(sheet, POWER_HEADERS)
    for name, group in zip(names, server_groups(plan), strict=True):
        s, row = group.server, sheet.max_row + 1
        share, headroom = Formula(f"=C{row}/E{row}"), Formula(f"=E{row}-C{row}")
        within, power = Formula(f"=C{row}<=E{row}"), Formula(f"=B{row}*C{row}")
        _put(
            sheet, [name, group.quantity, s.power_w, s.feed, s.feed_usable_w, share, headroom, within, power]
        )
        sheet.cell(row, 6).number_format = "0%"
    last = sheet.max_row
    _put(sheet, ["Total", "", "", "", "", "", "", "", Formula(f"=SUM(I2:I{last})" if last >= 2 else "=0")])
    _bold_row(sheet, sheet.max_row)
    _widths(sheet, (14, 10, 20, 14, 20, 14, 14, 16, 14))


def _tco(book: Any, plan: Plan, total: str, power_total: str) -> None:
    """Purchase plus the servers' energy at full-load draw over the years."""
    t = plan.tco
    if t is None:
        return
    sheet = book.create_sheet("TCO")
    rows: list[list[Any]] = [
        ["Purchase", Formula(f"=Summary!{total}")],
        ["Full-load power (W)", Formula(f"=Power!{power_total}")],
        ["Utilisation", t.utilisation],
        ["Years", t.years],
        ["PUE", t.pue],
        [f"Energy price ({plan.currency}/kWh)", t.price_per_kwh],
        ["Energy (kWh)", Formula(f"=B2*B3*B4*{HOURS_PER_YEAR:g}*B5/1000")],
        ["Energy cost", Formula("=B7*B6")],
        ["Total cost of ownership", Formula("=B1+B8")],
    ]
    for row in rows:
        _put(sheet, row)
    for r in (1, 8, 9):
        sheet.cell(r, 2).number_format = MONEY
    _bold_row(sheet, 9)
    _widths(sheet, (28, 18))


def _options(book: Any, plan: Plan) -> None:
    rows = alternative_rows(plan)
    if not rows:
        return
    sheet = book.create_sheet("Options")
    _header(sheet, ALTERNATIVE_HEADERS)
    for row, alt in zip(rows, plan.alternatives, strict=True):
        _put(sheet, [row[0], alt.plan.total_price, alt.price_difference, row[3], row[4]])
    _widths(sheet, (12, 16, 18, 80, 60))


def _placement(book: Any, plan: Plan) -> None:
    sheet = book.create_sheet("Placement")
    _header(sheet, PLACEMENT_HEADERS)
    for a in plan.assignments:
        gpus = ", ".join(str(g) for g in a.gpus)
        _put(sheet, [a.run, a.copy_, a.server, gpus, str(a.strategy), a.memory_per_gpu_gb.total])
    _widths(sheet, (24, 8, 10, 18, 10, 20))


def _schedule(book: Any, plan: Plan) -> None:
    """A queue bid's jobs: run, number, server, GPUs, start and end hours."""
    if not plan.schedule:
        return
    sheet = book.create_sheet("Schedule")
    _header(sheet, SCHEDULE_HEADERS)
    for job in plan.schedule:
        gpus = ", ".join(str(g) for g in job.gpus)
        _put(sheet, [job.run, job.job, job.server, gpus, job.start_hours, job.end_hours])
    _widths(sheet, (24, 8, 10, 18, 12, 12))


def _rent(book: Any, plan: Plan, total: str) -> None:
    """The plan's GPU-hours at each cloud rate, cost = GPU-hours × rate as formulas, totals per kind,
    and (queue plans) the break-even: purchase / on-demand rent per horizon × horizon / 730 h."""
    rent = plan.rent
    if rent is None:
        return
    sheet = book.create_sheet("Buy or rent")
    _header(sheet, RENT_HEADERS)
    for row, s in enumerate(rent.sources, start=2):
        _put(sheet, [s.card, s.kind, s.provider, s.offer, s.match, s.gpu_hours, s.usd_per_gpu_hour,
                     Formula(f"=F{row}*G{row}"), s.url, s.read])  # fmt: skip
        sheet.cell(row, 8).number_format = MONEY
    last = len(rent.sources) + 1
    _put(sheet, [])
    _put(
        sheet,
        ["Rent on demand", "", "", "", "", "", "", Formula(f'=SUMIF(B2:B{last},"on-demand",H2:H{last})')],
    )
    on_demand = sheet.max_row
    committed: Any = (
        Formula(f'=SUMIF(B2:B{last},"committed",H2:H{last})')
        if rent.committed_cost is not None
        else "no committed rate published for every card"
    )
    _put(sheet, ["Rent committed", "", "", "", "", "", "", committed])
    _put(sheet, ["Purchase", "", "", "", "", "", "", Formula(f"=Summary!{total}")])
    for row in range(on_demand, sheet.max_row + 1):
        sheet.cell(row, 8).number_format = MONEY
        _bold_row(sheet, row)
    if plan.horizon_hours:
        _put(sheet, ["Horizon (h)", "", "", "", "", "", "", plan.horizon_hours])
        horizon = sheet.max_row
        months = Formula(f"=H{horizon - 1}/H{on_demand}*H{horizon}/{MONTH_HOURS}")
        _put(sheet, ["Break-even (months)", "", "", "", "", "", "", months])
        sheet.cell(sheet.max_row, 8).number_format = "0.0"
        _bold_row(sheet, sheet.max_row)
    _put(sheet, [f"Cloud rates read by ftopt on {rent.read_by_ftopt}; each row gives its address and date."])
    _widths(sheet, (16, 11, 12, 44, 9, 12, 12, 16, 50, 12))


def _technical(book: Any, plan: Plan) -> None:
    sheet = book.create_sheet("Technical")
    for label, value in internals(plan):
        _put(sheet, [label, value])
    _widths(sheet, (20, 100))


def write_xlsx(plan: Plan, path: Path, internals: bool = True) -> None:
    """Write the quote workbook to `path`; without `internals`, no Placement or Technical sheet."""
    from openpyxl import Workbook

    book = Workbook()
    names = group_sheet_names(plan)
    total = _summary(book, plan, names)
    for name, group in zip(names, server_groups(plan), strict=True):
        _bill_sheet(book, name, group.server.bill_of_materials, plan.currency)
    if plan.fabric is not None:
        _bill_sheet(book, "Fabric", plan.fabric.bill_of_materials, plan.currency)
    _runs(book, plan)
    _power(book, plan, names)
    _tco(book, plan, total, f"I{len(names) + 2}")
    _schedule(book, plan)
    _rent(book, plan, total)
    _options(book, plan)
    if internals:
        _placement(book, plan)
        _technical(book, plan)
    book.save(path)
