"""Files beside a bid (the seller's logo its quote names): kept insert-only, checked by name and
size, served as sandboxed downloads, exported and imported with the bid."""

from __future__ import annotations

import sqlite3

import pytest

from ftopt.serve.security import CSRF_COOKIE
from ftopt.serve.store import Store
from tests.serve.conftest import FIRST_PROJECT, create, solve

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def test_a_logo_is_kept_listed_and_downloaded_sandboxed(client):
    bid = create(client, FIRST_PROJECT)
    put = client.put(
        f"/api/bids/{bid}/files/logo.svg", content=SVG, headers={"content-type": "image/svg+xml"}
    )
    assert put.status_code == 201 and put.json() == {"name": "logo.svg", "bytes": len(SVG)}
    listed = client.get(f"/api/bids/{bid}/files").json()
    assert [(f["name"], f["bytes"]) for f in listed] == [("logo.svg", len(SVG))]
    got = client.get(f"/api/bids/{bid}/files/logo.svg")
    assert got.content == SVG and got.headers["content-type"] == "application/octet-stream"
    assert (
        got.headers["content-disposition"].startswith("attachment")
        and got.headers["content-security-policy"] == "sandbox"
    )
    assert client.get(f"/api/bids/{bid}/files/other.png").status_code == 404


@pytest.mark.parametrize("name", ["../logo.png", "logo.exe", ".png", "a b.png", "x" * 120 + ".png"])
def test_a_file_that_is_no_plain_image_name_is_refused(client, name):
    bid = create(client, FIRST_PROJECT)
    reply = client.put(f"/api/bids/{bid}/files/{name}", content=PNG, headers={"content-type": "image/png"})
    assert reply.status_code in (400, 404) and reply.headers["content-type"] == "application/problem+json"
    assert client.get(f"/api/bids/{bid}/files").json() == []


def test_a_file_over_a_megabyte_is_refused(client):
    bid = create(client, FIRST_PROJECT)
    reply = client.put(f"/api/bids/{bid}/files/big.png", content=b"x" * 1_000_001,
                       headers={"content-type": "image/png"})  # fmt: skip
    assert reply.status_code == 400 and reply.json()["errors"][0]["field"] == "file"


def test_a_newer_upload_of_a_name_wins_and_the_older_is_never_lost(tmp_path):
    store = Store(tmp_path)
    bid = store.create_bid("b", "name: b\n", "ann").bid_id
    store.add_file(bid, "logo.png", b"one", "ann")
    store.add_file(bid, "logo.png", b"two", "bob")
    assert store.files(bid)["logo.png"].data == b"two"
    db = sqlite3.connect(store.path)
    assert [r[0] for r in db.execute("SELECT data FROM files ORDER BY id")] == [b"one", b"two"]
    with pytest.raises(sqlite3.IntegrityError, match="never overwritten"):
        db.execute("UPDATE files SET data=x'00'")
    with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
        db.execute("DELETE FROM files")


def test_the_files_travel_with_an_export(client):
    bid = create(client, FIRST_PROJECT)
    client.put(f"/api/bids/{bid}/files/logo.png", content=PNG, headers={"content-type": "image/png"})
    exported = client.get(f"/api/bids/{bid}/export").content
    new = client.post(
        "/api/bids/import", content=exported, headers={"content-type": "application/json"}
    ).json()["id"]
    assert client.get(f"/api/bids/{new}/files/logo.png").content == PNG


def test_the_page_keeps_an_uploaded_logo_beside_the_bid(client):
    bid = create(client, FIRST_PROJECT)
    client.get("/")
    reply = client.post(
        f"/bids/{bid}/files",
        data={"csrf": client.cookies[CSRF_COOKIE]},
        files={"file": ("logo.png", PNG, "image/png")},
        follow_redirects=False,
    )
    assert reply.status_code == 303
    page = client.get(f"/bids/{bid}/versions/1").text
    assert f'href="/api/bids/{bid}/files/logo.png"' in page


LOGO_BID = FIRST_PROJECT + (
    "quote:\n  number: Q-2027-0142\n  seller: {name: Example Systems GmbH, logo: logo.png}\n"
    "  margin_percent: 18\n  tax_percent: 19\n"
    "  services:\n    - {name: Installation and burn-in, price: 1500, per: server}\n"
)


def test_a_quote_embeds_the_logo_kept_beside_the_bid_in_both_copies(client):
    bid = create(client, LOGO_BID)
    refused = client.post(f"/api/bids/{bid}/solve", json={"time_limit": 10})
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "quote.seller.logo"
    assert "upload it" in refused.json()["detail"]
    assert client.get(f"/bids/{bid}/versions/1").status_code == 200  # the page stays, to upload it
    client.put(f"/api/bids/{bid}/files/logo.png", content=PNG, headers={"content-type": "image/png"})
    solve(client, bid)
    url = f"/api/bids/{bid}/versions/1/quote"
    buyer = client.get(url, params={"format": "html"}).text
    seller = client.get(url, params={"format": "html", "copy": "seller"}).text
    assert "data:image/png;base64," in buyer and "data:image/png;base64," in seller
    buyer_md = client.get(url, params={"format": "md"}).text
    seller_md = client.get(url, params={"format": "md", "copy": "seller"})
    assert "seller" in seller_md.headers["content-disposition"]
    assert "margin" in seller_md.text.lower() and "cost" in seller_md.text.lower()
    assert "(seller's copy)" not in buyer_md and "Q-2027-0142" in buyer_md
    bad = client.get(url, params={"format": "md", "copy": "both"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "copy"
