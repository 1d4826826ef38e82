"""The quote workbook's buy-or-rent and schedule sheets: costs, totals and break-even are formulas
that give the plan's rent figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from openpyxl import load_workbook

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.quote.xlsx import write_xlsx
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.conftest import workload_from
from tests.solver.test_queue import MONTH


def _value(book, sheet: str, ref: str) -> float:
    """The few formulas the sheet uses: =F2*G2, =SUMIF(B2:B5,"kind",H2:H5), =Summary!F8, =H7/H5*H8/730."""
    raw = book[sheet][ref].value
    if not (isinstance(raw, str) and raw.startswith("=")):
        return float(raw)
    text = raw[1:]
    if m := re.fullmatch(r"([A-Z]+\d+)\*([A-Z]+\d+)", text):
        return _value(book, sheet, m[1]) * _value(book, sheet, m[2])
    if m := re.fullmatch(r'SUMIF\(B(\d+):B(\d+),"([a-z-]+)",H\d+:H\d+\)', text):
        rows = range(int(m[1]), int(m[2]) + 1)
        return sum(_value(book, sheet, f"H{r}") for r in rows if book[sheet][f"B{r}"].value == m[3])
    if m := re.fullmatch(r"Summary!([A-Z]+\d+)", text):
        return _summary_total(book, m[1])
    if m := re.fullmatch(r"([A-Z]+\d+)/([A-Z]+\d+)\*([A-Z]+\d+)/730", text):
        return _value(book, sheet, m[1]) / _value(book, sheet, m[2]) * _value(book, sheet, m[3]) / 730
    raise AssertionError(f"unexpected formula {raw}")


def _summary_total(book, ref: str) -> float:
    """The summary's total: its formula is checked by test_render_xlsx; here it is the plan's price."""
    assert book["Summary"][ref].value.startswith("=")
    return float(PURCHASE[0])


#: The plan's price, which the summary's total computes (tests/quote/test_xlsx.py checks that).
PURCHASE: list[float] = []


@pytest.fixture(scope="module")
def quote(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, Path]:
    plan = solve(
        workload_from(MONTH), load_catalogue(), SolveSettings(time_limit=30, workers=2)
    ).plan_or_raise()
    path = tmp_path_factory.mktemp("xlsx") / "queue.xlsx"
    write_xlsx(plan, path)
    PURCHASE[:] = [plan.total_price]
    return plan, path


def test_rent_costs_totals_and_break_even_are_formulas(quote: tuple[Plan, Path]) -> None:
    plan, path = quote
    rent = plan.rent
    assert rent is not None
    book = load_workbook(path)
    sheet = book["Buy or rent"]
    labels = {sheet[f"A{r}"].value: r for r in range(1, sheet.max_row + 1)}
    assert _value(book, "Buy or rent", f"H{labels['Rent on demand']}") == pytest.approx(rent.cost, abs=0.01)
    committed = sheet[f"H{labels['Rent committed']}"].value
    if rent.committed_cost is None:
        assert committed == "no committed rate published for every card"
    else:
        assert _value(book, "Buy or rent", f"H{labels['Rent committed']}") == pytest.approx(
            rent.committed_cost
        )
    assert _value(book, "Buy or rent", f"H{labels['Purchase']}") == pytest.approx(plan.total_price, abs=0.01)
    months = _value(book, "Buy or rent", f"H{labels['Break-even (months)']}")
    assert months == pytest.approx(rent.break_even_months, abs=0.01)


def test_the_schedule_sheet_lists_every_job(quote: tuple[Plan, Path]) -> None:
    plan, path = quote
    rows = list(load_workbook(path)["Schedule"].iter_rows(min_row=2, values_only=True))
    assert sorted((r[0], r[1], r[4], r[5]) for r in rows) == sorted(
        (j.run, j.job, j.start_hours, j.end_hours) for j in plan.schedule
    )
