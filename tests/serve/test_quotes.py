"""Downloads of a stored plan: PDF is Chromium's print of the HTML quote, or 501 with one line."""

from __future__ import annotations

import pytest

from ftopt.serve import quotes
from tests.serve.conftest import FIRST_PROJECT, create, solve


def test_without_chromium_a_pdf_is_answered_501_in_one_line(client, monkeypatch):
    bid = create(client, FIRST_PROJECT)
    solve(client, bid)
    monkeypatch.setattr(quotes, "find_chromium", lambda: None)
    reply = client.get(f"/api/bids/{bid}/versions/1/quote", params={"format": "pdf"})
    assert reply.status_code == 501
    assert reply.headers["content-type"] == "application/problem+json"
    assert reply.json()["type"] == "urn:ftopt:problem:no-pdf"
    assert reply.json()["detail"] == (
        "ftopt: PDF needs Chromium (apt-get install chromium); download the HTML quote and print it"
    )


@pytest.mark.skipif(quotes.find_chromium() is None, reason="Chromium is not installed: PDF not tested")
def test_the_pdf_is_chromiums_print_of_the_html_quote(client):
    bid = create(client, FIRST_PROJECT)
    solve(client, bid)
    reply = client.get(f"/api/bids/{bid}/versions/1/quote", params={"format": "pdf"})
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/pdf"
    assert reply.content.startswith(b"%PDF-") and len(reply.content) > 10_000
    assert reply.headers["content-disposition"] == f'attachment; filename="bid-{bid}-v1.pdf"'
