"""The registry of quote formats: each format the CLI offers is one entry, and the bytes it gives are
the quote `ftopt solve --format X -o FILE` writes, so the workbench's download is the CLI's file."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from openpyxl import load_workbook

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.cli.solve import write_plan
from ftopt.model.summary import summarize
from ftopt.quote.formats import FORMATS, QuoteOptions, plan_record, render, render_bytes
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "first-project.yaml"


@pytest.fixture(scope="module")
def solved():
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLE, catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=30, what_if=False)).plan_or_raise()
    return plan, summarize(plan, workload, catalogue)


def test_every_format_of_the_command_is_in_the_registry() -> None:
    choices = next(p for p in cli.commands["solve"].params if p.name == "fmt").type.choices  # type: ignore[attr-defined]
    assert set(choices) == set(FORMATS)
    assert {f.suffix for f in FORMATS.values()} >= {"json", "yaml", "md", "html", "xlsx", "txt"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_registry_gives_the_file_the_command_writes(solved, fmt: str, tmp_path: Path) -> None:
    plan, summary = solved
    path = tmp_path / f"quote.{FORMATS[fmt].suffix}"
    write_plan(plan, fmt, path, summary=summary)
    body = render_bytes(plan, fmt, summary, QuoteOptions())
    if fmt == "pdf":  # the PDF carries its creation time: compare the text it prints
        pytest.importorskip("weasyprint")
        assert _pdf_text(body) == _pdf_text(path.read_bytes())
        assert summary.headline.split(" for ")[0] in " ".join(_pdf_text(body).split())
    elif fmt == "xlsx":  # a zip with timestamps: compare what the cells say
        cells = [[c.value for row in ws.iter_rows() for c in row] for ws in load_workbook(path)]
        (tmp_path / "again.xlsx").write_bytes(body)
        assert cells == [
            [c.value for row in ws.iter_rows() for c in row] for ws in load_workbook(tmp_path / "again.xlsx")
        ]
    else:
        assert body == path.read_bytes()
        assert summary.headline.split(" for ")[0] in body.decode("utf-8")


def _pdf_text(body: bytes) -> str:
    pypdf = pytest.importorskip("pypdf")
    return "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(body)).pages)


def test_json_and_yaml_carry_the_plan_and_its_summary(solved) -> None:
    plan, summary = solved
    record = plan_record(plan, summary)
    assert json.loads(render(plan, "json", summary=summary)) == record
    assert yaml.safe_load(render(plan, "yaml", summary=summary)) == record
    assert record["summary"]["headline"] == summary.headline


def test_a_workbook_is_not_text(solved) -> None:
    plan, summary = solved
    with pytest.raises(ValueError, match="not a text format"):
        render(plan, "xlsx", summary=summary)


def test_the_command_writes_each_format(tmp_path: Path) -> None:
    out = tmp_path / "q.md"
    result = CliRunner().invoke(
        cli, ["solve", str(EXAMPLE), "--format", "markdown", "--no-what-if", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("#")
