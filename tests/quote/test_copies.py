"""The buyer's and the seller's copy in every format: each figure of the commercial lines and the
facility sheet that a format prints is the JSON summary's, the buyer's copy shows no cost, the
seller's adds cost and margin, and the PDF prints the total."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from ftopt.cli.main import cli
from ftopt.model.findings import money
from ftopt.model.summary import PlanSummary
from ftopt.quote.copies import logo_uri, quote_copy
from ftopt.quote.formats import FORMATS, QuoteOptions, render_bytes
from tests.quote.commercial_bid import QUOTE, solved, write_bid

TEXT_FORMATS = ("table", "markdown", "html", "xlsx", "pdf")


def _text(fmt: str, body: bytes, folder: Path) -> str:
    """What a person reads in the file: the text, every workbook cell, the PDF's extracted text."""
    if fmt == "xlsx":
        path = folder / "q.xlsx"
        path.write_bytes(body)
        return " ".join(str(c) for ws in load_workbook(path) for row in ws.iter_rows(values_only=True)
                        for c in row if c is not None)  # fmt: skip
    if fmt == "pdf":
        pypdf = pytest.importorskip("pypdf")
        return " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(body)).pages).split())
    return body.decode("utf-8")


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[PlanSummary, dict[str, str], dict]]:
    """Each copy: its summary, its text in every format, its JSON."""
    folder = tmp_path_factory.mktemp("bid")
    plan, workload, catalogue = solved(folder)
    out = {}
    for copy in ("buyer", "seller"):
        shown, summary = quote_copy(plan, workload, catalogue, copy)
        options = QuoteOptions(logo=logo_uri(folder / "bid.yaml", workload))
        texts = {}
        for fmt in TEXT_FORMATS:
            if fmt == "pdf":
                pytest.importorskip("weasyprint")
            texts[fmt] = _text(fmt, render_bytes(shown, fmt, summary, options), folder)
        out[copy] = (summary, texts, json.loads(render_bytes(shown, "json", summary)))
    return out


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_every_commercial_figure_printed_is_the_jsons(copies, fmt: str) -> None:
    for copy in ("buyer", "seller"):
        _, texts, record = copies[copy]
        block = record["summary"]["commercial"]
        c = block["currency"]
        text = _flat(texts[fmt])
        for key in ("hardware", "subtotal", "tax", "total", "services_total", "shipping"):
            assert money(block[key], c) in text, (copy, fmt, key)
        assert money(-block["discount"], c) in text, (copy, fmt)
        for line in block["lines"]:
            assert money(line["unit_price"], c) in text and money(line["price"], c) in text
        assert record["summary"]["headline"].split(";")[0] in text or fmt in ("pdf", "xlsx")


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_the_buyers_copy_shows_no_cost_and_the_sellers_shows_cost_and_margin(copies, fmt: str) -> None:
    buyer_summary, buyer_texts, buyer = copies["buyer"]
    _, seller_texts, seller = copies["seller"]
    c = seller["summary"]["commercial"]["currency"]
    costs = [money(line["cost"], c) for line in seller["summary"]["commercial"]["lines"]]
    margins = [money(line["margin"], c) for line in seller["summary"]["commercial"]["lines"]]
    total_cost = money(seller["summary"]["commercial"]["cost"], c)
    seller_text = _flat(seller_texts[fmt])
    assert all(x in seller_text for x in [*costs, *margins, total_cost])
    buyer_text = _flat(buyer_texts[fmt])
    assert total_cost not in buyer_text and not any(x in buyer_text for x in costs)
    assert buyer["summary"]["commercial"]["cost"] is None
    assert buyer_summary.price == buyer["total_price"]  # the buyer's plan is at sell prices throughout


def test_the_buyers_json_plan_is_at_sell_prices(copies) -> None:
    _, _, buyer = copies["buyer"]
    for server in buyer["servers"]:
        assert server["price"] == pytest.approx(
            sum(li["price"] for li in server["bill_of_materials"]), abs=0.005
        )
    lines = buyer["summary"]["commercial"]["lines"]
    assert sum(line["price"] for line in lines) == pytest.approx(buyer["total_price"], abs=0.005)


def test_the_facility_sheet_in_every_format_is_the_jsons(copies) -> None:
    _, texts, record = copies["buyer"]
    sheet = record["summary"]["facility"]
    for fmt in TEXT_FORMATS:
        text = _flat(html.unescape(texts[fmt]) if fmt == "html" else texts[fmt])
        for row in [*sheet["racks"], sheet["bid"]]:
            figures = (
                f"{row['power_max_w']:,}",
                f"{row['power_years_average_w']:,}",
                f"{row['heat_btu_h']:,}",
            )
            for figure in (*figures, f"{row['heat_kw']:,.2f}"):
                assert figure in text, (fmt, row["name"], figure)
        # the average is labelled what it is, never "at P50 load", and says why there is no P50 figure
        assert sheet["average_label"] in text and sheet["power_note"] in text, fmt
        if sheet["bid"]["weight_lacking"]:
            assert f"not published for any of {len(sheet['bid']['servers'])} servers" in text, fmt


def test_the_html_and_pdf_quote_are_headed_by_the_seller_with_the_logo(copies) -> None:
    _, texts, _ = copies["buyer"]
    assert re.search(r'<img class="logo" src="data:image/png;base64,[A-Za-z0-9+/=]+"', texts["html"])
    for fmt in ("html", "pdf"):
        text = _flat(texts[fmt])
        assert "Example Systems GmbH" in text and "Q-2027-0142, revision 3" in text
        assert "ACME Labs, Jane Doe" in text and "2027-01-31" in text and "30 days net" in text


def test_the_pdf_prints_the_total(copies) -> None:
    _, texts, record = copies["buyer"]
    block = record["summary"]["commercial"]
    assert f"Total to pay {money(block['total'], block['currency'])}" in _flat(texts["pdf"])


def test_solve_writes_both_copies_in_every_format(tmp_path: Path) -> None:
    bid = write_bid(tmp_path)
    base = ["solve", str(bid), "--no-what-if", "--workers", "2", "--time-limit", "30"]
    seller = CliRunner().invoke(cli, [*base, "--copy", "seller", "--format", "json"])
    buyer = CliRunner().invoke(cli, [*base, "--format", "json"])
    assert seller.exit_code == 0 and buyer.exit_code == 0, seller.output + buyer.output
    s, b = json.loads(seller.stdout)["summary"], json.loads(buyer.stdout)["summary"]
    assert s["commercial"]["copy_for"] == "seller" and b["commercial"]["copy_for"] == "buyer"
    assert s["commercial"]["total"] == b["commercial"]["total"]
    assert s["commercial"]["margin"] > 0 and b["commercial"]["margin"] is None
    assert set(FORMATS) >= {"table", "json", "yaml", "markdown", "html", "xlsx", "pdf"}
    pdf = CliRunner().invoke(cli, [*base, "--format", "pdf"])
    assert pdf.exit_code == 2 and "give -o FILE.pdf" in pdf.stderr


def test_a_currency_the_catalogue_does_not_price_in_is_refused(tmp_path: Path) -> None:
    bid = write_bid(tmp_path, {**QUOTE, "currency": "EUR"})
    done = CliRunner().invoke(cli, ["solve", str(bid)])
    assert done.exit_code == 2
    assert "quote.currency" in done.stderr and "USD" in done.stderr and "Traceback" not in done.output


def test_a_missing_logo_is_the_bids_error(tmp_path: Path) -> None:
    bid = write_bid(tmp_path)
    (tmp_path / "logo.png").unlink()
    done = CliRunner().invoke(cli, ["solve", str(bid)])
    assert done.exit_code == 2 and "quote.seller.logo" in done.stderr and "Traceback" not in done.output


def test_the_default_json_of_a_quoted_bid_verifies(tmp_path: Path) -> None:
    """`ftopt verify` re-derives the summary, commercial block and facility sheet included."""
    no_margin = {k: v for k, v in QUOTE.items() if k != "margin_percent"}
    bid = write_bid(tmp_path, no_margin)
    plan = tmp_path / "plan.json"
    args = ["solve", str(bid), "--no-what-if", "--workers", "2", "--format", "json", "-o", str(plan)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    record = json.loads(plan.read_text(encoding="utf-8"))
    assert record["summary"]["commercial"]["total"] > record["total_price"]  # services, shipping, tax
    done = CliRunner().invoke(cli, ["verify", str(bid), str(plan)])
    assert done.exit_code == 0, done.output
