"""The HTTP API, end to end in process: bids, versions, solves in worker processes, quotes, diffs,
what-if versions, export and import, the queue's 429 and cancelling."""

from __future__ import annotations

import io
import json
import re

import openpyxl
import pytest

from ftopt.catalogue import load_catalogue
from ftopt.reading.workload_file import load_workload_text
from ftopt.solver.solve import SolveSettings
from ftopt.solver.solve import solve as library_solve
from tests.serve.conftest import FEED_BOUND, FIRST_PROJECT, create, make_client, solve, wait


def test_the_bid_list_is_searched_by_customer(client):
    acme = FIRST_PROJECT + "quote: {customer: Acme GmbH, discount_percent: 5}\n"
    first, other = create(client, acme), create(client, FIRST_PROJECT)
    assert [b["id"] for b in client.get("/api/bids", params={"customer": "acme"}).json()] == [first]
    assert [b["id"] for b in client.get("/api/bids").json()] == [other, first]
    client.put(f"/api/bids/{other}", content=FIRST_PROJECT + "quote: {customer: ACME Labs}\n",
               headers={"content-type": "application/yaml"})  # fmt: skip
    found = client.get("/api/bids", params={"customer": "Acme"}).json()
    assert [(b["id"], b["customer"]) for b in found] == [(other, "ACME Labs"), (first, "Acme GmbH")]
    page = client.get("/", params={"customer": "gmbh"}).text
    assert "Acme GmbH" in page and "ACME Labs" not in page


def test_a_bid_is_made_from_yaml_or_json_and_listed(client):
    bid = create(client, FIRST_PROJECT)
    as_json = client.post(
        "/api/bids", json={"name": "j", "runs": [{"name": "r", "model": "qwen3-8b", "method": "lora"}]}
    )
    assert as_json.status_code == 201 and as_json.json()["version"] == 1
    listed = client.get("/api/bids").json()
    assert [(b["id"], b["name"]) for b in listed] == [(as_json.json()["id"], "j"), (bid, "first-project")]


def test_a_bad_workload_is_refused_with_the_clis_line_and_nothing_is_stored(client):
    reply = client.post("/api/bids", content="runs: [{name: r, model: gpt-9, method: lora}]\n",
                        headers={"content-type": "application/yaml"})  # fmt: skip
    assert reply.status_code == 400
    problem = reply.json()
    assert reply.headers["content-type"] == "application/problem+json"
    assert problem["type"] == "urn:ftopt:problem:invalid-workload" and problem["instance"] == "/api/bids"
    assert problem["detail"].startswith("ftopt: workload:1: runs[0].model: unknown model 'gpt-9'")
    assert [(e["field"], e["pointer"], e["line"]) for e in problem["errors"]] == [
        ("runs[0].model", "#/runs/0/model", 1)
    ]
    assert client.get("/api/bids").json() == []
    assert client.get("/api/bids/7").status_code == 404


def test_an_edit_is_a_new_version_and_the_old_one_stays(client):
    bid = create(client, FIRST_PROJECT)
    edited = FIRST_PROJECT.replace("inlet_c: 27", "inlet_c: 24")
    reply = client.put(f"/api/bids/{bid}", content=edited, headers={"content-type": "application/yaml"})
    assert reply.json() == {"id": bid, "version": 2}
    assert [v["number"] for v in client.get(f"/api/bids/{bid}").json()["versions"]] == [1, 2]
    assert client.get(f"/api/bids/{bid}/versions/1").json()["workload"] == FIRST_PROJECT
    assert client.get(f"/api/bids/{bid}/versions/2").json()["workload"] == edited
    changes = client.get(f"/api/bids/{bid}/compare", params={"a": 1, "b": 2}).json()["workload"]
    assert changes == [{"path": "site.inlet_c", "before": 27, "after": 24, "kind": "changed"}]


def test_a_quote_names_its_revision(client):
    bid = create(client, FIRST_PROJECT + "quote: {customer: Acme GmbH, number: Q-2027-0142}\n")
    client.put(f"/api/bids/{bid}", content=FIRST_PROJECT.replace("inlet_c: 27", "inlet_c: 26"),
               headers={"content-type": "application/yaml"})  # fmt: skip
    solve(client, bid, version=1)
    solve(client, bid, version=2)
    first = client.get(f"/api/bids/{bid}/versions/1/quote", params={"format": "md"}).text
    second = client.get(f"/api/bids/{bid}/versions/2/quote", params={"format": "html"}).text
    assert "Q-2027-0142" in first and re.search(r"[Rr]evision:? *1\b", first)
    assert re.search(r"[Rr]evision:?(</dt><dd>| *)2\b", second), second[:3000]
    # the stored revisions are as the user wrote them: the stamp is the quote's only
    assert "revision" not in client.get(f"/api/bids/{bid}/versions/1").json()["workload"]


def test_the_solved_price_is_the_librarys_and_every_quote_format_downloads(client):
    bid = create(client, FIRST_PROJECT)
    job = solve(client, bid)
    catalogue = load_catalogue()
    expected = library_solve(
        load_workload_text(FIRST_PROJECT, "w", catalogue), catalogue, SolveSettings(time_limit=10)
    )
    assert job["state"] == "done" and job["price"] == expected.plan.total_price == job["plan"]["total_price"]
    assert job["plan"]["status"] == "optimal" and job["gap"] == 0
    url = f"/api/bids/{bid}/versions/1/quote"
    html = client.get(url, params={"format": "html"})
    assert html.headers["content-type"].startswith("text/html") and "first-project" in html.text
    assert json.loads(client.get(url, params={"format": "json"}).text)["total_price"] == job["price"]
    assert "total_price:" in client.get(url, params={"format": "yaml"}).text
    assert client.get(url, params={"format": "md"}).text.startswith("#")
    book = openpyxl.load_workbook(io.BytesIO(client.get(url, params={"format": "xlsx"}).content))
    assert "Runs" in book.sheetnames
    assert client.get(url, params={"format": "exe"}).status_code == 400
    assert client.get(f"/api/bids/{bid}/versions/9/quote").status_code == 404


def test_a_saving_becomes_a_new_version_with_that_rule_eased_and_nothing_else(client):
    # the user's comments, an inlet eased by hand to the default 25 °C, a field at its default:
    # the eased version changes the feed's line and nothing else
    commented = "# Eight QLoRA copies for the support team (ticket 4711)\n" + FEED_BOUND.replace(
        "sizing: {mig: false}", "sizing: {mig: false}   # whole cards: the customer's driver policy"
    ).replace("site: {feed: 230v-16a, inlet_c: 25}", "site: {feed: 230v-16a, inlet_c: 25}  # eased from 27")
    bid = create(client, commented)
    job = solve(client, bid, what_if=True)
    savings = job["plan"]["savings"]
    assert savings[0]["subject"] == "a 230v-32a feed" and savings[0]["figures"]["relaxation"] == "feed"
    reply = client.post(f"/api/bids/{bid}/versions/1/ease/1")
    assert reply.status_code == 201 and reply.json()["note"] == "eased: a 230v-32a feed"
    changes = client.get(f"/api/bids/{bid}/compare", params={"a": 1, "b": 2}).json()["workload"]
    assert changes == [{"path": "site.feed", "before": "230v-16a", "after": "230v-32a", "kind": "changed"}]
    text = client.get(f"/api/bids/{bid}/versions/2").json()["workload"]
    assert text == commented.replace("feed: 230v-16a", "feed: 230v-32a")
    eased = solve(client, bid, version=2)
    assert eased["price"] == pytest.approx(job["price"] - savings[0]["figures"]["saved"])
    plan = client.get(f"/api/bids/{bid}/compare", params={"a": 1, "b": 2}).json()["plan"]
    assert plan["price_delta"] == pytest.approx(-savings[0]["figures"]["saved"])
    assert plan["servers_removed"] and plan["gpus_before"] == plan["gpus_after"] == 8
    assert client.post(f"/api/bids/{bid}/versions/1/ease/5").status_code == 404


def test_an_exported_bid_imports_with_its_history(client):
    bid = create(client, FIRST_PROJECT)
    client.put(
        f"/api/bids/{bid}",
        content=FIRST_PROJECT.replace("27", "26"),
        headers={"content-type": "application/yaml"},
    )
    solve(client, bid)
    exported = client.get(f"/api/bids/{bid}/export")
    assert exported.headers["content-disposition"].startswith("attachment")
    reply = client.post(
        "/api/bids/import", content=exported.content, headers={"content-type": "application/json"}
    )
    new = reply.json()["id"]
    assert new != bid and [v["number"] for v in client.get(f"/api/bids/{new}").json()["versions"]] == [1, 2]
    quote = client.get(f"/api/bids/{new}/versions/2/quote", params={"format": "json"})
    assert quote.status_code == 200 and json.loads(quote.text)["workload"] == "first-project"
    broken = client.post(
        "/api/bids/import", content=b'{"name": 1}', headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400 and broken.json()["detail"].startswith("ftopt: import: ")


def test_a_flood_of_solves_is_refused_with_429_beyond_the_queue(tmp_path):
    with make_client(tmp_path, workers=1, max_queue=1) as client:
        bid = create(client, FIRST_PROJECT)
        replies = [client.post(f"/api/bids/{bid}/solve", json={"time_limit": 10}) for _ in range(4)]
        assert [r.status_code for r in replies] == [202, 202, 429, 429]
        assert replies[2].headers["retry-after"] and replies[2].json()["detail"].startswith(
            "ftopt: too many solves"
        )
        for reply in replies[:2]:
            assert wait(client, reply.json()["job"])["state"] == "done"


def test_a_solve_is_cancelled_and_its_worker_stopped(client):
    bid = create(client, FEED_BOUND)  # its what-if re-solves and alternatives take a few seconds
    job = client.post(f"/api/bids/{bid}/solve", json={"time_limit": 30, "alternatives": 3}).json()["job"]
    wait(client, job, until=("running", "done"))
    reply = client.post(f"/api/jobs/{job}/cancel").json()
    final = wait(client, job)
    assert reply["cancelled"] is True and final["state"] == "cancelled" and final["plan"] is None
    assert client.post(f"/api/jobs/{job}/cancel").json()["cancelled"] is False


def test_progress_streams_as_server_sent_events_until_done(client):
    bid = create(client, FIRST_PROJECT)
    job = client.post(f"/api/bids/{bid}/solve", json={"time_limit": 10, "frontier": False}).json()["job"]
    with client.stream("GET", f"/api/jobs/{job}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = [line for line in stream.iter_lines() if line.startswith("event: ")]
    assert events[-1] == "event: done" and set(events[:-1]) <= {"event: progress"}
    assert client.get(f"/api/jobs/{job}").json()["state"] == "done"


def test_openapi_documents_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/bids", "/api/bids/{bid_id}", "/api/bids/{bid_id}/solve", "/api/jobs/{job_id}",
                 "/api/bids/{bid_id}/versions/{number}/quote"):  # fmt: skip
        assert path in paths
    assert "application/yaml" in paths["/api/bids"]["post"]["requestBody"]["content"]
