"""Every API error is RFC 9457 problem details, and /openapi.json lists exactly the API's routes."""

from __future__ import annotations

import re

import pytest

from ftopt.serve import api, pages
from ftopt.serve.problems import MEDIA_TYPE, Problem, body, pointer, validation_errors
from tests.serve.conftest import FIRST_PROJECT, create, make_client

TOKEN = "s3cret-token-of-some-length"
FIELDS = {"type", "title", "status", "detail", "instance"}


def assert_problem(reply, status: int, kind: str) -> dict:
    """The reply is problem details of `status`, typed `kind`, naming the request's path."""
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"] == MEDIA_TYPE
    found = reply.json()
    assert found.keys() >= FIELDS and found["status"] == status
    assert found["type"] == (f"urn:ftopt:problem:{kind}" if kind else "about:blank")
    assert found["instance"] == reply.request.url.path and found["detail"].startswith("ftopt: ")
    return found


def test_every_kind_of_api_error_is_problem_details(client):
    bid = create(client, FIRST_PROJECT)
    yaml = {"content-type": "application/yaml"}
    assert_problem(client.post("/api/bids", content="runs: [\n", headers=yaml), 400, "invalid-workload")
    assert_problem(client.get("/api/bids/99"), 404, "not-found")
    assert_problem(client.get(f"/api/bids/{bid}/versions/9"), 404, "not-found")
    assert_problem(client.get("/api/jobs/5"), 404, "not-found")
    assert_problem(client.get("/api/examples/nope"), 404, "not-found")
    assert_problem(client.get("/api/no-such-route"), 404, "")
    allowed = assert_problem(client.delete(f"/api/bids/{bid}"), 405, "")
    assert allowed["title"] == "Method Not Allowed"
    assert_problem(client.post("/api/bids", content="x", headers={"content-type": "text/csv"}), 400,
                   "invalid-workload")  # fmt: skip
    form = {"content-type": "application/x-www-form-urlencoded"}
    refused = assert_problem(
        client.post("/api/bids", content="a=b", headers=form), 415, "unsupported-media-type"
    )
    assert "form" in refused["detail"] or "x-www-form-urlencoded" in refused["detail"]
    quote = assert_problem(
        client.get(f"/api/bids/{bid}/versions/1/quote?format=exe"), 400, "invalid-workload"
    )
    assert quote["errors"][0]["field"] == "format"


def test_every_problem_of_a_workload_is_in_errors_with_its_line(client):
    text = (
        "runs:\n  - {name: r, model: llama-3.1-8b, method: lora, seq_len: -4}\n"
        "  - {name: s, model: qwen3-8b, method: lora, concurrent: 0}\n"
    )
    found = assert_problem(
        client.post("/api/bids", content=text, headers={"content-type": "application/yaml"}), 400,
        "invalid-workload",
    )  # fmt: skip
    assert [(e["field"], e["line"]) for e in found["errors"]] == [
        ("runs[0].seq_len", 2),
        ("runs[1].concurrent", 3),
    ]


def test_a_request_that_is_not_what_the_route_takes_names_its_fields(client):
    found = assert_problem(client.get("/api/bids/seven"), 422, "invalid-request")
    assert [(e["field"], e["in"]) for e in found["errors"]] == [("bid_id", "path")]
    bid = create(client, FIRST_PROJECT)
    knobs = assert_problem(client.post(f"/api/bids/{bid}/solve", json={"time_limit": -1, "what": 1}), 422,
                           "invalid-request")  # fmt: skip
    assert {e["field"] for e in knobs["errors"]} == {"time_limit", "what"}
    compare = assert_problem(client.get(f"/api/bids/{bid}/compare?a=1"), 422, "invalid-request")
    assert [e["field"] for e in compare["errors"]] == ["b"]


def test_a_full_queue_and_a_missing_token_are_problem_details_too(tmp_path):
    with make_client(tmp_path / "t", token=TOKEN) as client:
        assert_problem(client.get("/api/bids"), 401, "token-required")
        assert_problem(client.get("/openapi.json"), 401, "token-required")
    with make_client(tmp_path / "q", workers=1, max_queue=1) as client:
        bid = create(client, FIRST_PROJECT)
        replies = [client.post(f"/api/bids/{bid}/solve", json={"time_limit": 10}) for _ in range(3)]
        full = assert_problem(replies[-1], 429, "queue-full")
        assert full["title"] == "Too Many Requests" and replies[-1].headers["retry-after"]
        for reply in replies[:-1]:
            client.post(f"/api/jobs/{reply.json()['job']}/cancel", json={})


def test_a_page_error_stays_a_page(client):
    reply = client.get("/bids/99")
    assert reply.status_code == 404 and reply.headers["content-type"].startswith("text/html")
    assert client.get("/no-such-page").headers["content-type"].startswith("text/html")


def test_the_openapi_document_lists_every_api_route_and_no_other(client):
    document = client.get("/openapi.json").json()
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    served = {(method, route.path) for route in api.router.routes for method in route.methods}
    assert documented == served and len(served) >= 17
    # and the app serves each of them: a request to each reaches its route, not a 404/405 of none
    for method, path in sorted(documented):
        concrete = re.sub(r"\{[a-z_]+\}", "1", path)
        reply = client.request(method, concrete, headers={"content-type": "application/json"},
                               content="{}" if method != "GET" else None)  # fmt: skip
        if reply.headers.get("content-type") == MEDIA_TYPE:
            assert reply.json()["type"] != "about:blank", (method, path, reply.json())
    # no page route is documented, and the pages' router serves nothing under /api
    assert not any(route.path.startswith("/api") for route in pages.router.routes)


def test_the_openapi_document_says_errors_are_problem_details(client):
    document = client.get("/openapi.json").json()
    assert "Problem" in document["components"]["schemas"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            default = operation["responses"].get("default") or operation["responses"].get("4XX")
            assert default and MEDIA_TYPE in default["content"], (method, path)


@pytest.mark.parametrize(
    ("field", "expected"),
    [("runs[0].train_tokens", "#/runs/0/train_tokens"), ("site.racks[1].feeds", "#/site/racks/1/feeds"),
     ("a/b~c", "#/a~1b~0c")],
)  # fmt: skip
def test_a_field_path_is_also_a_json_pointer(field, expected):
    assert pointer(field) == expected


def test_a_problem_without_fields_has_no_errors_member():
    found = body(Problem(404, "not-found", "ftopt: no bid 3"), "/api/bids/3")
    assert "errors" not in found and found["title"] == "Not Found"
    assert validation_errors([{"loc": ("query", "a"), "msg": "Field required"}])[0]["field"] == "a"
    assert re.fullmatch(r"urn:ftopt:problem:[a-z-]+", body(Problem(400, "x-y", "d"), "/")["type"])
