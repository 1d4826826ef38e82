"""The racks table in the terminal, Markdown and HTML quotes of a plan whose site is racks."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ftopt.cli.main import cli

TWO_RACKS = str(Path(__file__).resolve().parents[2] / "examples" / "two-racks.yaml")


def solve(fmt: str) -> str:
    result = CliRunner().invoke(
        cli, ["solve", TWO_RACKS, "--format", fmt, "--no-what-if", "--time-limit", "20"]
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_every_text_format_has_one_row_per_circuit_with_its_load() -> None:
    plan = json.loads(solve("json"))
    rows = [(r["name"], c["feed"], f"{c['usable_w']:,}") for r in plan["racks"] for c in r["circuits"]]
    assert len(rows) == 4
    for fmt in ("table", "markdown", "html"):
        text = solve(fmt)
        assert "Racks" in text or "racks" in text
        for _, feed, usable in rows:
            assert feed in text and usable in text
    markdown = solve("markdown")
    assert "| rack | units | circuit | feed | servers | load W | usable W | load |" in markdown
    assert "Site: 2 racks of shared circuits (see Racks)" in markdown
    html = solve("html")
    assert '<section class="racks" id="racks">' in html and "0 (A side)" in html


def test_the_workbook_has_the_same_racks_rows(tmp_path: Path) -> None:
    """The racks table was in the terminal, Markdown and HTML quotes but not in the workbook. The
    workbook is written from the same plan as the rows it is compared with: two solves may place
    equally priced servers differently."""
    from openpyxl import load_workbook

    from ftopt.catalogue import load_catalogue
    from ftopt.cli.solve import write_plan
    from ftopt.model.plan import Plan
    from ftopt.model.summary import summarize
    from ftopt.quote.racks import rack_rows
    from ftopt.reading.workload_file import load_workload

    plan = Plan.model_validate(json.loads(solve("json")))
    catalogue = load_catalogue()
    target = tmp_path / "racks.xlsx"
    write_plan(
        plan, "xlsx", target, summary=summarize(plan, load_workload(Path(TWO_RACKS), catalogue), catalogue)
    )
    rows = list(load_workbook(target)["Racks"].iter_rows(min_row=2, values_only=True))
    expected = rack_rows(plan)
    assert [[c or "" for c in row] for row in rows[: len(expected)]] == expected


def test_a_feed_site_has_no_racks_table() -> None:
    first = str(Path(TWO_RACKS).with_name("first-project.yaml"))
    result = CliRunner().invoke(cli, ["solve", first, "--format", "markdown", "--no-what-if"])
    assert result.exit_code == 0 and "## Racks" not in result.stdout
