"""The sweep report's views: the objective in use is what the charts plot, and no cell or line of
the report lets a scenario's text run as markup or as a spreadsheet formula."""

from __future__ import annotations

import csv
import io
from typing import Any

from ftopt.quote.sweep import render_csv, render_html, render_markdown
from tests.quote.test_html import Page


def record(index: int, feed: str, price: float, tco: float | None = None, **extra: Any) -> dict[str, Any]:
    plan = {"servers": [], "tco": None if tco is None else {"objective": "tco", "total": tco}}
    figures = {"status": "optimal", "total_price": price, "currency": "USD", "gap": 0.0, "servers": 1}
    return {
        "index": index,
        "scenario": {"site.feed": feed},
        **figures,
        "wall_seconds": 0.1,
        "plan": plan,
        **extra,
    }


def test_a_tco_sweep_plots_the_tco_and_a_price_sweep_the_price() -> None:
    # the dearer purchase has the lower TCO: a chart of price would rank them the wrong way round
    tco = [record(0, "230v-16a", 90_000, tco=120_000), record(1, "230v-32a", 100_000, tco=110_000)]
    page = render_html(tco, {})
    assert "TCO (USD) by site.feed" in page and "price (USD) by site.feed" not in page
    assert len(Page(page).find("circle")) == 2
    assert "230v-16a: 120,000.00" in page and "230v-32a: 110,000.00" in page
    markdown = render_markdown(tco, {})
    assert "## TCO against `site.feed`" in markdown and "| 230v-32a | 1 | 1 | 110,000 |" in markdown
    price = render_html([record(0, "230v-16a", 90_000)], {})
    assert "price (USD) by site.feed" in price and "TCO" not in price.split("<h2>Scenarios")[0]


def test_no_csv_cell_of_a_scenario_starts_like_a_formula() -> None:
    records = [
        record(0, "=HYPERLINK(1)", 1_000, error=None),
        record(1, "@SUM(1)", 1_000, status="invalid", error="-2+3 is not a feed"),
    ]
    rows = list(csv.reader(io.StringIO(render_csv(records, {}))))
    cells = [c for row in rows for c in row if c]
    hostile = [c for c in cells if "HYPERLINK" in c or "SUM(" in c or "is not a feed" in c]
    assert len(hostile) == 3
    assert all(c.startswith("'") for c in hostile)


def test_the_markdown_report_escapes_a_scenarios_text() -> None:
    md = render_markdown([record(0, "<script>x</script>|a", 1_000)], {})
    assert "<script" not in md and "&lt;script&gt;x&lt;/script&gt;\\|a" in md
