"""The walk of issue 39 in Chromium: a racked bid built in the form with its commercial lines (quote
number, customer and contact, seller and logo, discount, validity, margin, tax, a service), solved,
saved as three revisions (form, YAML with comments, form again), two compared, the buyer's and the
seller's PDF downloaded; the page's figures are the JSON's, no comment of the YAML is lost, and every
API error the browser meets is problem+json.

Needs Debian's `chromium` (see test_browser.py); skipped, with the reason, without it.
"""

from __future__ import annotations

import json
import re

import pytest

from ftopt.serve.problems import MEDIA_TYPE
from ftopt.serve.quotes import HEADLESS_ARGS, find_chromium
from tests.serve.server import serving

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium; .ci/run installs it): browser test not run",
)
TIMEOUT_MS = 90_000
PNG = (  # a 1×1 pixel PNG
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4"
    b"\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)
COMMENTS = ("# Acme's support assistant: two QLoRA copies at once", "# two copies side by side")


@pytest.fixture
def page():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(HEADLESS_ARGS))
        tab = browser.new_page(accept_downloads=True)
        tab.set_default_timeout(TIMEOUT_MS)
        yield tab
        browser.close()


def solve_here(page) -> float:
    """Solve the revision on the page (no frontier), follow it live, and read the price to pay."""
    page.uncheck("input[name=frontier]")
    page.click("#solve")
    page.wait_for_url("**/jobs/*")
    page.wait_for_selector("#result")
    assert "proven the cheapest" in page.inner_text("#result")
    return float(page.get_attribute("#price", "data-price"))


def open_section(page, path: str) -> None:
    """Open a closed part of the form (a nested mapping or a new entry) by its field path."""
    page.click(f"details[data-path='{path}'] > summary")


def build_racked_bid(page, url: str) -> None:
    """Revision 1: every field typed into the form, the commercial lines included."""
    page.goto(url + "/bids/new")
    page.fill("input[name=name]", "acme-chat")
    page.fill("input[name='runs[0].name']", "chat")
    page.fill("input[name='runs[0].model']", "llama-3.1-8b")
    page.select_option("select[name='runs[0].method']", "qlora")
    page.fill("input[name='runs[0].concurrent']", "2")
    open_section(page, "site.racks[0]")
    page.fill("input[name='site.racks[0].name']", "a")
    page.fill("input[name='site.racks[0].units']", "8")
    page.fill("input[name='site.racks[0].feeds']", "230v-32a, 230v-32a")
    page.fill("input[name='quote.number']", "Q-2027-0142")
    open_section(page, "quote.customer")
    page.fill("input[name='quote.customer.name']", "Acme GmbH")
    page.fill("input[name='quote.customer.contact']", "ann@acme.example")
    open_section(page, "quote.seller")
    page.fill("input[name='quote.seller.name']", "Example Systems GmbH")
    page.fill("input[name='quote.seller.logo']", "logo.png")
    page.fill("input[name='quote.discount_percent']", "8")
    page.fill("input[name='quote.valid_until']", "2027-01-31")
    page.fill("input[name='quote.margin_percent']", "18")
    page.fill("input[name='quote.tax_percent']", "19")
    open_section(page, "quote.services[0]")
    page.fill("input[name='quote.services[0].name']", "Installation and burn-in")
    page.fill("input[name='quote.services[0].price']", "1500")
    page.select_option("select[name='quote.services[0].per']", "server")
    page.click("#create")
    page.wait_for_url("**/bids/1/versions/1")
    page.set_input_files("#file-input", files=[{"name": "logo.png", "mimeType": "image/png", "buffer": PNG}])
    page.click("#upload-file")
    page.wait_for_url("**/bids/1/versions/1")


def test_a_racked_bid_from_the_form_through_three_revisions_to_its_quote(page, tmp_path):
    errors: list[tuple[int, str, str]] = []
    page.on(
        "response",
        lambda r: (
            errors.append((r.status, r.url, r.headers.get("content-type", "")))
            if "/api/" in r.url and r.status >= 400
            else None
        ),
    )
    with serving(tmp_path / "data", "--time-limit", "10") as server:
        build_racked_bid(page, server.url)
        first_text = page.input_value("#workload")
        assert "racks:" in first_text and not re.search(r"^\s*feed:", first_text, re.M)  # no invented feed
        assert page.input_value("input[name='site.feed']") == ""  # the racked site shows no feed
        first = solve_here(page)

        # revision 2: the YAML, with the user's comments
        commented = COMMENTS[0] + "\n" + first_text.replace("concurrent: 2", f"concurrent: 2  {COMMENTS[1]}")
        page.fill("#workload", commented)
        page.click("#save-yaml")
        page.wait_for_url("**/bids/1/versions/2")

        # revision 3: one field in the form; the comments stay
        assert page.input_value("input[name='quote.discount_percent']") == "8"
        page.fill("input[name='quote.discount_percent']", "10")
        page.click("#save-form")
        page.wait_for_url("**/bids/1/versions/3")
        third_text = page.input_value("#workload")
        assert all(c in third_text for c in COMMENTS)
        assert third_text == commented.replace("discount_percent: 8", "discount_percent: 10")
        third = solve_here(page)
        assert third < first

        # compare revisions 1 and 3: the one input changed, and what it changed
        assert page.locator("#versions tr").count() == 4  # the heading and three revisions
        page.select_option("#compare-a", "1")
        page.select_option("#compare-b", "3")
        page.click("#compare")
        page.wait_for_url("**/bids/1/compare?*")
        rows = page.locator("#workload-diff tr").all_inner_texts()[1:]
        assert len(rows) == 1 and rows[0].split("\t")[:3] == ["quote.discount_percent", "8", "10"]
        assert f"{third - first:+,.2f}" in page.inner_text("#price-delta")

        # the quote of revision 3: the page's figures are the JSON's; both copies as PDF
        page.goto(server.url + "/bids/1/versions/3")
        assert page.locator("#files a", has_text="logo.png").count() == 1
        with page.expect_download() as download:
            page.click("#download-json")
        record = json.loads(download.value.path().read_text(encoding="utf-8"))
        summary = record["summary"]
        assert summary["price_to_pay"] == third
        shown = page.locator("#key-figures li").all_inner_texts()
        assert shown == [f"{f['label']}: {f['value']}" for f in summary["figures"]]
        assert any(text.startswith("Total to pay: ") for text in shown)
        with page.expect_download() as download:
            page.click("#download-md")
        markdown = download.value.path().read_text(encoding="utf-8")
        for words in ("Q-2027-0142", "Acme GmbH", "2027-01-31", "Example Systems GmbH", "Installation"):
            assert words in markdown, words
        assert re.search(r"[Rr]evision:? *3\b", markdown)
        assert "(seller's copy)" not in markdown
        for link in ("#download-pdf", "#download-seller-pdf"):
            with page.expect_download() as download:
                page.click(link)
            assert download.value.path().read_bytes().startswith(b"%PDF"), link
        seller = page.request.get(server.url + "/api/bids/1/versions/3/quote?format=md&copy=seller").text()
        assert "(seller's copy)" in seller
        html = page.request.get(server.url + "/api/bids/1/versions/3/quote?format=html").text()
        assert "data:image/png;base64," in html  # the logo kept beside the bid

        # the bid list finds the bid by its customer
        page.goto(server.url + "/?customer=acme")
        assert "acme-chat" in page.inner_text("#bids")

        # API errors a browser may meet: each is problem details
        # (a script's calls through the browser's context, and a page's own fetch of a missing quote)
        replies = [
            page.request.get(server.url + path)
            for path in ("/api/bids/99", "/api/bids/abc", "/api/bids/1/versions/9/quote", "/api/nothing")
        ]
        yaml = {"content-type": "application/yaml"}
        replies.append(page.request.post(server.url + "/api/bids", data="runs: [\n", headers=yaml))
        replies.append(page.request.delete(server.url + "/api/bids/1"))
        errors += [(r.status, r.url, r.headers.get("content-type", "")) for r in replies]
        page.goto(server.url + "/api/bids/1/versions/2/quote?format=html")  # revision 2 was never solved
    assert sorted({status for status, _, _ in errors}) == [400, 404, 405, 422]
    assert any("/versions/2/quote" in url for _, url, _ in errors)  # seen by the page itself
    assert all(kind == MEDIA_TYPE for _, _, kind in errors), errors
