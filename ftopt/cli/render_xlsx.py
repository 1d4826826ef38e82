"""The plan as a spreadsheet quote: one sheet per server, a summary whose totals are formulas.

Why formulas and not numbers: a presales engineer edits a unit price or a quantity in the workbook
(a discount, a spare card) and expects every total to follow, as in any quote they build by hand.
Each server sheet lists its bill of materials with `Price = Quantity × Unit price` as a formula and
a `SUM` total; the summary refers to each server sheet's total and sums them; a placement sheet
says where each run copy trains. openpyxl is imported only when a workbook is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ftopt.model.plan import Plan

MONEY = "#,##0.00"
BOM_HEADERS = ("Item", "Name", "Quantity", "Unit price", "Price")
PLACEMENT_HEADERS = ("Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)")


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

    placement = book.create_sheet("Placement")
    placement.append(PLACEMENT_HEADERS)
    _bold_row(placement, 1)
    for a in plan.assignments:
        gpus = ", ".join(str(g) for g in a.gpus)
        placement.append([a.run, a.copy_, a.server, gpus, str(a.strategy), a.memory_per_gpu_gb.total])
    _widths(placement, (24, 8, 10, 18, 10, 20))
    book.save(path)
