"""The workbench as a person uses it, in Debian's Chromium driven by Playwright: a bid from an
example, a solve with live progress, the proven price equal to the CLI's, the xlsx downloaded, a
field edited into version 2, the two compared, a restart, and everything found again; a bid named
`<script>alert(1)</script>` is shown as text and runs nothing.

Needs Debian's `chromium` (`.ci/run` installs it); skipped, with the reason, without it. Playwright's
own browser download is never used: its driver starts /usr/bin/chromium.
"""

from __future__ import annotations

import io
import json

import openpyxl
import pytest
from click.testing import CliRunner

from ftopt.cli.main import cli
from ftopt.serve.quotes import HEADLESS_ARGS, find_chromium
from tests.serve.conftest import REPO
from tests.serve.server import serving

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium; .ci/run installs it): browser test not run",
)
ARGS = list(HEADLESS_ARGS)
TIMEOUT_MS = 90_000


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def cli_price(path) -> float:
    result = CliRunner().invoke(
        cli, ["solve", str(path), "--format", "json", "--time-limit", "10", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return float(json.loads(result.output)["total_price"])


def _solve_on_page(page) -> float:
    """Press Solve, watch the live page, land on the result; the proven price shown."""
    page.uncheck("input[name=frontier]")
    page.click("#solve")
    page.wait_for_url("**/jobs/*")
    page.wait_for_selector("#result", timeout=TIMEOUT_MS)  # the page script moves on when done
    assert "proven the cheapest" in page.inner_text("#result")
    return float(page.get_attribute("#price", "data-price"))


def test_a_bid_from_example_to_comparison_and_back_after_a_restart(browser, tmp_path):
    data = tmp_path / "data"
    with serving(data, "--time-limit", "10") as server:
        page = browser.new_page(accept_downloads=True)
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/")
        page.select_option("#example", "first-project")
        page.click("#from-example")
        page.wait_for_url("**/bids/1/versions/1")
        price = _solve_on_page(page)
        assert price == cli_price(REPO / "examples" / "first-project.yaml")
        with page.expect_download() as download:
            page.click("#download-xlsx")
        book = openpyxl.load_workbook(io.BytesIO(download.value.path().read_bytes()))
        assert "Runs" in book.sheetnames
        page.fill("input[name='site.inlet_c']", "22")
        page.click("#save-form")
        page.wait_for_url("**/bids/1/versions/2")
        second = _solve_on_page(page)
        page.click("#compare")
        page.wait_for_url("**/bids/1/compare?*")
        assert "site.inlet_c" in page.inner_text("#workload-diff")
        assert f"{second - price:+,.2f}" in page.inner_text("#price-delta")
        server.kill()
    with serving(data) as again:
        page.goto(again.url + "/bids/1")
        assert page.locator("#versions tr").count() == 3  # the heading and both versions
        assert float(page.get_attribute("#price", "data-price")) == second
        quote = page.request.get(again.url + "/api/bids/1/versions/1/quote?format=json")
        assert json.loads(quote.text())["total_price"] == price


def test_a_script_in_a_bid_name_shows_as_text_and_never_runs(browser, tmp_path):
    evil = "<script>alert(1)</script>"
    dialogs: list[str] = []
    with serving(tmp_path / "data") as server:
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server.url + "/bids/new")
        page.fill("input[name=name]", evil)
        page.fill("input[name='runs[0].name']", "chat")  # run names are plain words; the bid's is free text
        page.fill("input[name='runs[0].model']", "llama-3.1-8b")
        page.select_option("select[name='runs[0].method']", "qlora")
        page.click("#create")
        page.wait_for_url("**/bids/1/versions/1")
        assert page.inner_text("#bid-name").startswith(evil)
        page.goto(server.url + "/")
        assert page.inner_text("#bids").count(evil) == 1
    assert dialogs == []
