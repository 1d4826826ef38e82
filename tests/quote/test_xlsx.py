"""`ftopt solve --format xlsx`: a workbook whose totals, hours, power and TCO are formulas that give
the plan's own figures, with one sheet per group and no user text that a spreadsheet would run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from openpyxl import load_workbook

from ftopt.cli.main import cli
from ftopt.model.plan import Plan
from ftopt.model.summary import link_words, method_words, summarize
from ftopt.quote.view import run_rows, server_groups
from ftopt.quote.xlsx import group_sheet_names, write_xlsx

REF = re.compile(r"(?:'((?:[^']|'')+)'|([A-Za-z_][A-Za-z0-9_]*))!([A-Z]+\d+)|\b([A-Z]+\d+)\b")
SUM = re.compile(r"SUM\(([A-Z]+)(\d+):([A-Z]+)(\d+)\)")
ARITHMETIC = re.compile(r"[0-9.eE+\-*/()<= ]+|True|False")


class Evaluator:
    """Computes the workbook's formulas from the cells they reference: arithmetic, comparisons,
    SUM down one column and references to other sheets; anything else fails the test, so the
    writer cannot slip in a formula nobody checked."""

    def __init__(self, book) -> None:
        self.book = book

    def value(self, sheet: str, ref: str) -> float:
        raw = self.book[sheet][ref].value
        if isinstance(raw, str) and raw.startswith("="):
            return self.formula(sheet, raw[1:])
        assert isinstance(raw, int | float), f"{sheet}!{ref} = {raw!r} is not a number"
        return raw

    def formula(self, sheet: str, text: str) -> float:
        def total(m: re.Match[str]) -> str:
            assert m[1] == m[3], "sums run down one column"
            return repr(sum(self.value(sheet, f"{m[1]}{row}") for row in range(int(m[2]), int(m[4]) + 1)))

        def cell(m: re.Match[str]) -> str:
            if m[4]:
                return repr(self.value(sheet, m[4]))
            return repr(self.value((m[1] or m[2]).replace("''", "'"), m[3]))

        expression = REF.sub(cell, SUM.sub(total, text))
        assert ARITHMETIC.fullmatch(expression), f"unexpected formula ={text}"
        return eval(expression)


def write_bid(folder: Path, **changes) -> Path:
    """The first project at four copies of each run, with training tokens and a deadline."""
    bid = yaml.safe_load(Path("examples/first-project.yaml").read_text(encoding="utf-8"))
    for run in bid["runs"]:
        run.update(concurrent=4, train_tokens=50_000_000)
    bid["runs"][0]["deadline_hours"] = 200
    bid.update(changes)
    workload = folder / "four-copies.yaml"
    workload.write_text(yaml.safe_dump(bid), encoding="utf-8")
    return workload


@pytest.fixture(scope="module")
def quote(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, Path]:
    folder = tmp_path_factory.mktemp("xlsx")
    workload = write_bid(folder)
    runner = CliRunner()
    args = ["solve", str(workload), "--workers", "2", "--no-what-if", "--alternatives", "1"]
    done = runner.invoke(cli, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    target = folder / "quote.xlsx"
    written = runner.invoke(cli, [*args, "--format", "xlsx", "-o", str(target)])
    assert written.exit_code == 0, written.output
    return Plan.model_validate(json.loads(done.stdout)), target


def test_one_sheet_per_server_group_and_a_sheet_per_view(quote):
    plan, path = quote
    book = load_workbook(path)
    assert len(plan.servers) >= 3 and len(server_groups(plan)) < len(
        plan.servers
    )  # identical servers grouped
    names = group_sheet_names(plan)
    assert book.sheetnames == [
        "Summary",
        *names,
        "Runs",
        "Headroom",
        "Power",
        "TCO",
        "Buy or rent",
        "Options",
        "Facility sheet",
        "Explanation",
        "Placement",
        "Technical",
    ]


def test_the_summary_total_is_quantity_times_each_group_and_computes_the_plan_price(quote):
    plan, path = quote
    book = load_workbook(path)  # formulas as written, not cached values
    summary = book["Summary"]
    total = next(row for row in summary.iter_rows() if row[0].value == "Total")[8]
    assert isinstance(total.value, str) and total.value.startswith("=SUM(")
    evaluate = Evaluator(book)
    assert evaluate.value("Summary", total.coordinate) == pytest.approx(plan.total_price)
    rows = {row[0].value: row for row in summary.iter_rows() if row[0].value in group_sheet_names(plan)}
    for name, group in zip(group_sheet_names(plan), server_groups(plan), strict=True):
        assert rows[name][6].value == group.quantity
        assert evaluate.value("Summary", rows[name][8].coordinate) == pytest.approx(group.price)


def test_each_group_sheet_prices_one_server_by_formula(quote):
    plan, path = quote
    book = load_workbook(path)
    evaluate = Evaluator(book)
    for name, group in zip(group_sheet_names(plan), server_groups(plan), strict=True):
        sheet = book[name]
        assert [c.value for c in sheet[1]] == ["Item", "Name", "Quantity", "Unit price", "Price"]
        for row, line in enumerate(group.server.bill_of_materials, start=2):
            assert sheet[f"A{row}"].value == line.item and sheet[f"C{row}"].value == line.quantity
            assert sheet[f"E{row}"].value == f"=C{row}*D{row}"
            assert evaluate.value(name, f"E{row}") == pytest.approx(line.price)
        total = f"E{len(group.server.bill_of_materials) + 2}"
        assert evaluate.value(name, total) == pytest.approx(group.server.price)


def test_the_runs_sheet_computes_hours_deadline_and_energy(quote):
    plan, path = quote
    book = load_workbook(path)
    evaluate = Evaluator(book)
    sheet = book["Runs"]
    rows = run_rows(plan)
    assert sheet.max_row == 1 + len(rows)
    assert sum(sheet.cell(r, 4).value for r in range(2, sheet.max_row + 1)) == len(plan.assignments)
    for r, row in enumerate(rows, start=2):
        assert sheet[f"C{r}"].value == method_words(row.run)
        assert evaluate.value("Runs", f"H{r}") == pytest.approx(row.first.hours, rel=1e-3)
        assert evaluate.value("Runs", f"L{r}") == pytest.approx(row.energy_kwh)
        assert plan.tco is not None and row.energy_kwh is not None
        assert evaluate.value("Runs", f"M{r}") == pytest.approx(row.energy_kwh * plan.tco.price_per_kwh)
        # hours at the deadline confidence: the sheet's hours × (1 + counted overhead) × spread factor,
        # the plan's stated P50 or P90 hours; the deadline is met on them
        held = row.first.hours_at(row.run.deadline_confidence if row.run else None)
        assert evaluate.value("Runs", f"P{r}") == pytest.approx(held, rel=1e-3)
        assert sheet[f"S{r}"].value == row.first.hours_p50 and sheet[f"T{r}"].value == row.first.hours_p90
        assert sheet[f"U{r}"].value == row.first.checkpoint_interval_h
        assert sheet[f"V{r}"].value == row.first.expected_interruptions
        if row.run is not None and row.run.deadline_hours is not None:
            assert evaluate.value("Runs", f"J{r}") == row.deadline_met
        else:
            assert sheet[f"J{r}"].value is None


def test_the_power_sheet_sets_each_server_against_its_feed_and_states_its_supplies(quote):
    plan, path = quote
    book = load_workbook(path)
    evaluate = Evaluator(book)
    for r, group in enumerate(server_groups(plan), start=2):
        s = group.server
        assert evaluate.value("Power", f"F{r}") == pytest.approx(s.power_w / s.feed_usable_w)
        assert evaluate.value("Power", f"G{r}") == s.feed_usable_w - s.power_w
        assert evaluate.value("Power", f"H{r}") is True
        power = book["Power"]
        fitted = f"{s.psu_count} × {s.psu_watts:,} W, {s.psu_redundancy}"
        assert s.psu_count and power[f"J{r}"].value == fitted
        assert (power[f"K{r}"].value, power[f"L{r}"].value) == (s.psu_load_w, s.psu_capacity_w)
    total = f"I{len(server_groups(plan)) + 2}"
    assert evaluate.value("Power", total) == sum(s.power_w for s in plan.servers)


def test_the_tco_sheet_computes_the_plans_tco_from_the_bill(quote):
    plan, path = quote
    assert plan.tco is not None
    evaluate = Evaluator(load_workbook(path))
    assert evaluate.value("TCO", "B7") == pytest.approx(plan.tco.energy_kwh, rel=1e-6)
    assert evaluate.value("TCO", "B9") == pytest.approx(plan.tco.total, abs=0.01)


def test_the_options_sheet_lists_the_alternatives(quote):
    plan, path = quote
    sheet = load_workbook(path)["Options"]
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert len(rows) == len(plan.alternatives) >= 1
    assert rows[0][1] == pytest.approx(plan.alternatives[0].plan.total_price)


def test_the_placement_sheet_lists_every_copy(quote):
    plan, path = quote
    sheet = load_workbook(path)["Placement"]
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert [c.value for c in sheet[1]] == [
        "Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)", "Link"
    ]  # fmt: skip
    assert len(rows) == len(plan.assignments)
    first = plan.assignments[0]
    assert rows[0] == (
        first.run, first.copy_, first.server, first.gpus_text, str(first.strategy),
        first.memory_per_gpu_gb.total, link_words(plan, first) or "—",
    )  # fmt: skip


def test_the_solvers_figures_are_on_their_own_sheet(quote):
    plan, path = quote
    book = load_workbook(path)
    technical = {row[0]: row[1] for row in book["Technical"].iter_rows(values_only=True)}
    assert technical["optimality gap"] == f"{plan.gap:.2%}" and "assumed prices" in technical
    summary = [c for row in book["Summary"].iter_rows(values_only=True) for c in row if isinstance(c, str)]
    assert not any("gap" in c or "bound" in c for c in summary)


@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_no_cell_the_users_text_reaches_starts_like_a_formula(quote, tmp_path: Path, start: str):
    plan, _ = quote
    nasty = f'{start}HYPERLINK("http://example.invalid","x")'
    runs = [r.model_copy(update={"name": nasty + r.name}) for r in plan.runs]
    assignments = [a.model_copy(update={"run": nasty + a.run}) for a in plan.assignments]
    hostile = plan.model_copy(update={"workload": nasty, "runs": runs, "assignments": assignments})
    target = tmp_path / "hostile.xlsx"
    write_xlsx(hostile, target)
    book = load_workbook(target)
    reached = 0
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and "HYPERLINK" in cell.value:
                    where = f"{sheet.title}!{cell.coordinate}"
                    # text, shown as typed: a quote-prefix style, no visible apostrophe
                    assert cell.data_type == "s" and cell.value.startswith(start), where
                    assert cell.quotePrefix, where
                    reached += 1
    assert reached >= 1 + 2 * len(plan.runs)  # the title, the runs sheet and the placement sheet


def test_every_formula_carries_its_value_for_previews_that_do_not_recalculate(quote):
    """Before XlsxWriter, openpyxl wrote formulas without cached values: a preview showed empty totals."""
    plan, path = quote
    formulas, cached = load_workbook(path), load_workbook(path, data_only=True)
    evaluate = Evaluator(formulas)
    checked = 0
    for sheet in formulas.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("=") and "SUMIF" not in cell.value:
                    value = cached[sheet.title][cell.coordinate].value
                    assert value is not None, f"{sheet.title}!{cell.coordinate} has no cached value"
                    assert value == pytest.approx(evaluate.value(sheet.title, cell.coordinate), rel=1e-6)
                    checked += 1
    assert checked > 20
    total = next(r for r in cached["Summary"].iter_rows(values_only=True) if r[0] == "Total")[8]
    assert total == pytest.approx(plan.total_price)


def test_the_options_sheet_shows_no_apostrophe(quote):
    """The Options sheet's "+1 × …" differences read as typed: no visible escape character."""
    plan, path = quote
    sheet = load_workbook(path)["Options"]
    column = [c.value for c in sheet[1]].index("what differs") + 1
    differs = sheet.cell(row=2, column=column)
    assert differs.value == "; ".join(plan.alternatives[0].differs)
    assert not differs.value.startswith("'")
    assert differs.quotePrefix == differs.value.startswith(("=", "+", "-", "@"))


def test_xlsx_without_an_output_file_is_one_line_and_exit_2():
    result = CliRunner().invoke(cli, ["solve", "examples/first-project.yaml", "--format", "xlsx"])
    assert result.exit_code == 2
    assert result.stderr == "ftopt: --format xlsx writes a workbook: give -o FILE.xlsx\n"


def test_the_workbook_states_what_shaped_the_answer_and_the_rules_as_the_other_formats(quote):
    plan, path = quote
    summary = summarize(plan)
    cells = [row[0].value for row in load_workbook(path)["Explanation"].iter_rows()]
    assert cells[0] == "What shaped the answer" and "Rules and defaults applied" in cells
    assert [s.text for s in summary.shaped] == cells[1 : cells.index("Rules and defaults applied")]
    assert [s.text for s in summary.rules] == cells[cells.index("Rules and defaults applied") + 1 :]
    assert summary.rules and all(s.text for s in summary.rules)
