"""One rounding rule: every format shows the figure the JSON holds. The workbook's hours at the
deadline confidence are the plan's own (they were 0.01 h off when read back from rounded hours), a
money axis ticks in whole units, and the discount rounds to the cent once, as the summary does."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import load_workbook

from ftopt.catalogue import load_catalogue
from ftopt.model.summary import summarize
from ftopt.model.workload import QuoteDetails
from ftopt.quote.frontier import axis_money
from ftopt.quote.xlsx import RUNS_HEADERS, write_xlsx
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("amount, shown", [(748543.67, "748,544"), (1_000_000.0, "1,000,000"), (12.5, "12")])
def test_a_money_axis_has_no_cents(amount: float, shown: str) -> None:
    assert axis_money(amount) == shown


def test_the_workbooks_hours_at_the_deadline_confidence_are_the_plans(tmp_path: Path) -> None:
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "deadline.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=30, what_if=False, workers=2)).plan_or_raise()
    summary = summarize(plan, workload, catalogue)
    path = tmp_path / "q.xlsx"
    write_xlsx(plan, path, True, summary)
    rows = list(load_workbook(path, data_only=True)["Runs"].iter_rows(values_only=True))
    held = RUNS_HEADERS.index("Hours at the deadline confidence")
    checked = 0
    for row in rows[1:]:
        copies = [a for a in plan.assignments if a.run == row[0]]
        run = next(r for r in plan.runs if r.name == row[0])
        if row[held] is None:
            continue
        assert {round(a.hours_at(run.deadline_confidence) or 0, 6) for a in copies} >= {round(row[held], 6)}
        checked += 1
    assert checked, "the deadline bid has hours at its confidence"


def test_the_workbooks_price_to_pay_rounds_the_discount_as_the_summary_does(tmp_path: Path) -> None:
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "first-project.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=30, what_if=False, workers=2)).plan_or_raise()
    odd = plan.model_copy(update={"total_price": 12345.67})
    quoted = workload.model_copy(update={"quote": QuoteDetails(discount_percent=12.5)})
    summary = summarize(odd, quoted, catalogue)
    assert summary.price_to_pay == round(12345.67 - round(12345.67 * 0.125, 2), 2)
    path = tmp_path / "q.xlsx"
    write_xlsx(odd, path, True, summary)
    formulas = [
        r for r in load_workbook(path)["Summary"].iter_rows(values_only=True) if r[0] == "Price to pay"
    ]
    assert "ROUND(" in str(formulas[-1][8])
