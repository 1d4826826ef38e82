"""Safe by default: loopback unless a token is given, the token on every request, CSRF on forms,
form content types refused by the API, capped bodies, escaped text and no path from a request."""

from __future__ import annotations

from click.testing import CliRunner

from ftopt.cli.main import cli
from ftopt.serve.security import CSRF_COOKIE, MAX_BODY_BYTES
from tests.serve.conftest import FIRST_PROJECT, create, make_client

TOKEN = "s3cret-token-of-some-length"


def test_a_host_beyond_loopback_needs_a_token_file(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--data", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "ftopt: --host 0.0.0.0 listens beyond this machine: give --token-file FILE "
        "(a secret every request must carry)"
    ]
    short = tmp_path / "token"
    short.write_text("abc\n")
    result = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0", "--token-file", str(short), "--data", str(tmp_path)]
    )
    assert (
        result.exit_code == 2
        and "at least 16 characters" in result.output
        and "Traceback" not in result.output
    )


def test_with_a_token_every_request_must_carry_it(tmp_path):
    with make_client(tmp_path, token=TOKEN) as client:
        assert client.get("/api/bids").status_code == 401
        assert client.get("/openapi.json").status_code == 401
        page = client.get("/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/login"
        assert client.get("/api/bids", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert client.get("/api/bids", headers={"X-Ftopt-Token": TOKEN}).status_code == 200
        assert client.get("/api/bids", headers={"X-Ftopt-Token": TOKEN[:-1]}).status_code == 401
        assert client.get("/login").status_code == 200
        csrf = client.cookies[CSRF_COOKIE]
        wrong = client.post("/login", data={"csrf": csrf, "token": "nope"})
        assert wrong.status_code == 401 and client.get("/api/bids").status_code == 401
        client.post("/login", data={"csrf": csrf, "token": TOKEN})
        assert client.get("/api/bids").status_code == 200  # the login cookie


def test_forms_without_their_csrf_token_are_refused(client):
    client.get("/")
    reply = client.post("/bids/example", data={"example": "first-project"})
    assert reply.status_code == 400 and "CSRF" in reply.text
    forged = client.post("/bids/example", data={"example": "first-project", "csrf": "guess"})
    assert forged.status_code == 400 and client.get("/api/bids").json() == []
    ok = client.post("/bids/example", data={"example": "first-project", "csrf": client.cookies[CSRF_COOKIE]})
    assert ok.status_code == 200 and len(client.get("/api/bids").json()) == 1


def test_the_api_refuses_what_a_cross_site_form_can_send(client):
    for kind in ("text/plain", "application/x-www-form-urlencoded"):
        reply = client.post("/api/bids", content=FIRST_PROJECT, headers={"content-type": kind})
        assert reply.status_code == 415
    assert client.get("/api/bids").json() == []


def test_bodies_over_the_cap_are_refused_unread(client):
    reply = client.post(
        "/api/bids", content=b"#" * (MAX_BODY_BYTES + 1), headers={"content-type": "application/yaml"}
    )
    assert reply.status_code == 413 and reply.json()["detail"].startswith("ftopt: request body over")
    assert reply.headers["content-type"] == "application/problem+json"


def test_a_script_in_a_bid_name_is_text_on_every_page(client):
    evil = "<script>alert(1)</script>"
    bid = create(client, FIRST_PROJECT.replace("name: first-project", f"name: '{evil}'"))
    for url in ("/", f"/bids/{bid}/versions/1"):
        html = client.get(url).text
        assert evil not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "script-src 'self'" in client.get("/").headers["content-security-policy"]


def test_examples_are_found_by_name_never_by_path(client):
    assert "first-project" in client.get("/api/examples").json()
    assert client.get("/api/examples/first-project").text == FIRST_PROJECT
    for name in ("..%2F..%2Fpyproject", "%2Fetc%2Fpasswd", "first-project.yaml"):
        assert client.get(f"/api/examples/{name}").status_code == 404
