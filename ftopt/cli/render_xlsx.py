"""The plan as a spreadsheet quote: one sheet per server, a summary whose totals are formulas.

Why formulas and not numbers: a presales engineer edits a unit price or a quantity in the workbook
(a discount, a spare card) and expects every total to follow, as in any quote they build by hand.
Each server sheet lists its bill of materials with `Price = Quantity × Unit price` as a formula and
a `SUM` total; the summary refers to each server sheet's total and sums them; a placement sheet
says where each run copy trains, a schedule sheet when each job of a queue bid runs, and a buy-or-
rent sheet prices the training hours at cloud rates (cost, totals and break-even as formulas).
openpyxl is imported only when a workbook is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ftopt.model.plan import Plan

MONEY = "#,##0.00"
BOM_HEADERS = ("Item", "Name", "Quantity", "Unit price", "Price")
PLACEMENT_HEADERS = ("Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)")
SCHEDULE_HEADERS = ("Run", "Job", "Server", "GPUs", "Start (h)", "End (h)")
RENT_HEADERS = (
    "Card",
    "Kind",
    "Provider",
    "Offer",
    "Match",
    "GPU-hours",
    "Per GPU-hour",
    "Cost",
    "Source",
    "Read",
)


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


def server_total_cells(plan: Plan) -> dict[str, str]:
    """Where each server sheet keeps its total: server id → cell (for the summary's formulas)."""
    return {server.id: f"E{len(server.bill_of_materials) + 2}" for server in plan.servers}


def write_xlsx(plan: Plan, path: Path) -> None:
    """Write the quote workbook to `path`."""
    from openpyxl import Workbook

    book = Workbook()
    summary = book.worksheets[0]  # the sheet a new workbook has
    summary.title = "Summary"
    totals = server_total_cells(plan)

    for server in plan.servers:
        sheet = book.create_sheet(server.id)
        sheet.append(BOM_HEADERS)
        _bold_row(sheet, 1)
        for row, line in enumerate(server.bill_of_materials, start=2):
            sheet.append([line.item, line.name, line.quantity, line.unit_price, f"=C{row}*D{row}"])
            sheet.cell(row, 4).number_format = MONEY
            sheet.cell(row, 5).number_format = MONEY
        last = len(server.bill_of_materials) + 1
        total_row = last + 1
        sheet.cell(total_row, 4, f"Total {plan.currency}")
        sheet.cell(total_row, 5, f"=SUM(E2:E{last})").number_format = MONEY
        _bold_row(sheet, total_row)
        _widths(sheet, (22, 60, 10, 14, 16))

    summary.append([f"Quote: {plan.workload or 'workload'}"])
    summary.append(["Status", str(plan.status)])
    summary.append(["Currency", plan.currency])
    summary.append(["Price list", plan.price_list])
    summary.append([])
    summary.append(["Server", "Chassis", "GPUs", "CPUs", "RAM (GB)", f"Price ({plan.currency})"])
    header = summary.max_row
    _bold_row(summary, 1)
    _bold_row(summary, header)
    for server in plan.servers:
        summary.append(
            [
                server.id,
                server.chassis,
                f"{server.gpu_count} × {server.gpu}",
                f"{server.cpu_count} × {server.cpu}",
                server.ram_gb,
                f"={_sheet_ref(server.id)}!{totals[server.id]}",
            ]
        )
        summary.cell(summary.max_row, 6).number_format = MONEY
    first, last = header + 1, summary.max_row
    summary.append(["Total", "", "", "", "", f"=SUM(F{first}:F{last})" if plan.servers else 0])
    summary.cell(summary.max_row, 6).number_format = MONEY
    _bold_row(summary, summary.max_row)
    _widths(summary, (12, 28, 24, 24, 10, 18))
    if plan.rent is not None:
        _rent_sheet(book, plan, f"Summary!F{summary.max_row}")

    placement = book.create_sheet("Placement")
    placement.append(PLACEMENT_HEADERS)
    _bold_row(placement, 1)
    for a in plan.assignments:
        gpus = ", ".join(str(g) for g in a.gpus)
        placement.append([a.run, a.copy_, a.server, gpus, str(a.strategy), a.memory_per_gpu_gb.total])
    _widths(placement, (24, 8, 10, 18, 10, 20))
    if plan.schedule:
        schedule = book.create_sheet("Schedule")
        schedule.append(SCHEDULE_HEADERS)
        _bold_row(schedule, 1)
        for job in plan.schedule:
            gpus = ", ".join(str(g) for g in job.gpus)
            schedule.append([job.run, job.job, job.server, gpus, job.start_hours, job.end_hours])
        _widths(schedule, (24, 8, 10, 18, 12, 12))
    book.save(path)


def _rent_sheet(book: Any, plan: Plan, purchase: str) -> None:
    """The plan's GPU-hours at each cloud rate, cost = GPU-hours × rate as formulas, totals per kind,
    and (queue plans) the break-even: purchase / on-demand rent per horizon × horizon / 730 h."""
    rent = plan.rent
    assert rent is not None
    sheet = book.create_sheet("Buy or rent")
    sheet.append(RENT_HEADERS)
    _bold_row(sheet, 1)
    for row, source in enumerate(rent.sources, start=2):
        sheet.append(
            [source.card, source.kind, source.provider, source.offer, source.match, source.gpu_hours,
             source.usd_per_gpu_hour, f"=F{row}*G{row}", source.url, source.read]
        )  # fmt: skip
        sheet.cell(row, 8).number_format = MONEY
    last = len(rent.sources) + 1
    sheet.append([])
    sheet.append(["Rent on demand", "", "", "", "", "", "", f'=SUMIF(B2:B{last},"on-demand",H2:H{last})'])
    on_demand = sheet.max_row
    committed = (
        f'=SUMIF(B2:B{last},"committed",H2:H{last})'
        if rent.committed_cost is not None
        else "no committed rate published for every card"
    )
    sheet.append(["Rent committed", "", "", "", "", "", "", committed])
    sheet.append(["Purchase", "", "", "", "", "", "", f"={purchase}"])
    for row in range(on_demand, sheet.max_row + 1):
        sheet.cell(row, 8).number_format = MONEY
        _bold_row(sheet, row)
    if plan.horizon_hours:
        sheet.append(["Horizon (h)", "", "", "", "", "", "", plan.horizon_hours])
        horizon = sheet.max_row
        sheet.append(
            ["Break-even (months)", "", "", "", "", "", "", f"=H{horizon - 1}/H{on_demand}*H{horizon}/730"]
        )
        sheet.cell(sheet.max_row, 8).number_format = "0.0"
        _bold_row(sheet, sheet.max_row)
    sheet.append([f"Cloud rates read by ftopt on {rent.read_by_ftopt}; each row gives its address and date."])
    _widths(sheet, (16, 11, 12, 44, 9, 12, 12, 16, 50, 12))
