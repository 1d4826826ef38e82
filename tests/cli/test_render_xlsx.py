"""`ftopt solve --format xlsx`: a workbook whose totals are formulas that add up to the plan's price."""

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

CELL = re.compile(r"^(?:'((?:[^']|'')+)'|([A-Za-z0-9_]+))!([A-Z]+\d+)$")


class Evaluator:
    """Computes the few formulas the quote uses from the cells they reference: =C2*D2, =SUM(E2:E9),
    ='s1'!E9; anything else fails the test, so the writer cannot slip in a formula nobody checked."""

    def __init__(self, book) -> None:
        self.book = book

    def value(self, sheet: str, ref: str) -> float:
        raw = self.book[sheet][ref].value
        if isinstance(raw, str) and raw.startswith("="):
            return self.formula(sheet, raw[1:])
        return float(raw)

    def formula(self, sheet: str, text: str) -> float:
        if m := re.fullmatch(r"([A-Z]+\d+)\*([A-Z]+\d+)", text):
            return self.value(sheet, m[1]) * self.value(sheet, m[2])
        if m := re.fullmatch(r"SUM\(([A-Z]+)(\d+):([A-Z]+)(\d+)\)", text):
            assert m[1] == m[3], "sums run down one column"
            return sum(self.value(sheet, f"{m[1]}{row}") for row in range(int(m[2]), int(m[4]) + 1))
        if m := CELL.fullmatch(text):
            return self.value((m[1] or m[2]).replace("''", "'"), m[3])
        raise AssertionError(f"unexpected formula ={text}")


@pytest.fixture(scope="module")
def quote(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, Path]:
    folder = tmp_path_factory.mktemp("xlsx")
    # the first project at four copies of each run: three servers on its 16 A feed
    bid = yaml.safe_load(Path("examples/first-project.yaml").read_text(encoding="utf-8"))
    for run in bid["runs"]:
        run["concurrent"] = 4
    workload = folder / "four-copies.yaml"
    workload.write_text(yaml.safe_dump(bid), encoding="utf-8")
    runner = CliRunner()
    args = ["solve", str(workload), "--workers", "2", "--no-what-if"]
    done = runner.invoke(cli, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    target = folder / "quote.xlsx"
    written = runner.invoke(cli, [*args, "--format", "xlsx", "-o", str(target)])
    assert written.exit_code == 0, written.output
    return Plan.model_validate(json.loads(done.stdout)), target


def test_the_summary_total_is_a_formula_that_computes_the_plan_price(quote):
    plan, path = quote
    book = load_workbook(path)  # formulas as written, not cached values
    assert len(plan.servers) >= 2  # several sheets to add up
    assert book.sheetnames == ["Summary", *(s.id for s in plan.servers), "Placement"]
    summary = book["Summary"]
    total_row = next(row for row in summary.iter_rows() if row[0].value == "Total")
    total = total_row[5]
    assert isinstance(total.value, str) and total.value.startswith("=SUM(")
    assert Evaluator(book).value("Summary", total.coordinate) == pytest.approx(plan.total_price)
    server_rows = [row for row in summary.iter_rows() if row[0].value in {s.id for s in plan.servers}]
    assert [CELL.fullmatch(row[5].value[1:]) is not None for row in server_rows] == [True] * len(plan.servers)


def test_each_server_sheet_prices_its_lines_by_formula(quote):
    plan, path = quote
    book = load_workbook(path)
    evaluate = Evaluator(book)
    for server in plan.servers:
        sheet = book[server.id]
        assert [c.value for c in sheet[1]] == ["Item", "Name", "Quantity", "Unit price", "Price"]
        for row, line in enumerate(server.bill_of_materials, start=2):
            assert sheet[f"A{row}"].value == line.item and sheet[f"C{row}"].value == line.quantity
            assert sheet[f"E{row}"].value == f"=C{row}*D{row}"
            assert evaluate.value(server.id, f"E{row}") == pytest.approx(line.price)
        total = f"E{len(server.bill_of_materials) + 2}"
        assert evaluate.value(server.id, total) == pytest.approx(server.price)


def test_the_placement_sheet_lists_every_copy(quote):
    plan, path = quote
    sheet = load_workbook(path)["Placement"]
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert [c.value for c in sheet[1]] == ["Run", "Copy", "Server", "GPUs", "Strategy", "Memory per GPU (GB)"]
    assert len(rows) == len(plan.assignments)
    first = plan.assignments[0]
    assert rows[0] == (
        first.run,
        first.copy_,
        first.server,
        ", ".join(map(str, first.gpus)),
        str(first.strategy),
        first.memory_per_gpu_gb.total,
    )


def test_xlsx_without_an_output_file_is_one_line_and_exit_2():
    result = CliRunner().invoke(cli, ["solve", "examples/first-project.yaml", "--format", "xlsx"])
    assert result.exit_code == 2
    assert result.stderr == "ftopt: --format xlsx writes a workbook: give -o FILE.xlsx\n"
