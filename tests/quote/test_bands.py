"""Each figure's band in every quote format, against the plan JSON: a copy's memory per GPU, hours
and energy and a server's wall power are printed in the technical appendix with the band the JSON
holds for them ("78.4 GB (−6/+11 %, 31 points, 7 sources)") and its basis."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from ftopt.catalogue import load_catalogue
from ftopt.model.summary import summarize
from ftopt.quote.formats import QuoteOptions, render, render_bytes
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

DEADLINE = Path(__file__).resolve().parents[2] / "examples" / "deadline.yaml"


@pytest.fixture(scope="module")
def solved():
    catalogue = load_catalogue()
    workload = load_workload(DEADLINE, catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, what_if=False)).plan_or_raise()
    return plan, summarize(plan, workload, catalogue)


def _words(value: str, band: dict[str, Any]) -> str:
    """The band as the issue writes it, from the JSON's fields alone."""
    low, high = round(band["low"] * 100), round(band["high"] * 100)
    low_text = f"{'−' if low < 0 else '+'}{abs(low)}"
    high_text = f"{'+' if high >= 0 else '−'}{abs(high)}"
    return f"{value} ({low_text}/{high_text} %, {band['points']} points, {band['sources']} sources)"


def expected(record: dict[str, Any]) -> set[tuple[str, str]]:
    """Every (words, basis) the JSON's bands give: each copy's memory per GPU, hours and energy and
    each server's wall power."""
    out = set()
    for a in record["assignments"]:
        bands = a["bands"]
        out.add((_words(f"{a['memory_per_gpu_gb']['total']:,.1f} GB", bands["memory_per_gpu"]),
                 bands["memory_per_gpu"]["basis"]))  # fmt: skip
        out.add((_words(f"{a['hours']:,.1f} h", bands["hours"]), bands["hours"]["basis"]))
        out.add((_words(f"{a['energy_kwh']:,.0f} kWh", bands["energy"]), bands["energy"]["basis"]))
    for s in record["servers"]:
        out.add((_words(f"{s['power_w']:,.0f} W", s["power_band"]), s["power_band"]["basis"]))
    return out


def _text(plan, summary, fmt: str, internals: bool = True) -> str:
    if fmt == "xlsx":
        body = render_bytes(plan, "xlsx", summary, QuoteOptions(internals=internals))
        book = load_workbook(io.BytesIO(body))
        return "\n".join(str(c.value) for ws in book.worksheets for row in ws.iter_rows() for c in row)
    text = render(plan, fmt, internals=internals, summary=summary)
    return html.unescape(text) if fmt == "html" else text


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "xlsx"])
def test_every_band_of_the_json_is_in_the_quotes_appendix(solved, fmt: str) -> None:
    plan, summary = solved
    record = json.loads(render(plan, "json", summary=summary))
    wanted = expected(record)
    assert len({w for w, _ in wanted}) >= 4  # memory, hours, energy of the copies, wall power
    text = " ".join(_text(plan, summary, fmt).split()) if fmt == "table" else _text(plan, summary, fmt)
    for words, basis in wanted:
        assert words in text, (fmt, words)
        assert basis in text, (fmt, basis)
    assert {b.words for b in summary.bands} == {w for w, _ in wanted}  # the summary is the JSON's


@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "xlsx"])
def test_the_buyers_copy_without_the_appendix_has_no_band_table(solved, fmt: str) -> None:
    """The bands are in the technical appendix: the copy without it (internals off) has none."""
    plan, summary = solved
    words = summary.bands[0].words
    assert words in " ".join(_text(plan, summary, fmt).split())
    assert words not in " ".join(_text(plan, summary, fmt, internals=False).split())
