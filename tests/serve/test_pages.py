"""The pages as a form user meets them: a bid from the form, errors beside their field, a YAML edit,
a solve, its result with downloads, and two versions compared."""

from __future__ import annotations

import html
import re

import markupsafe

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary
from ftopt.quote.copies import quote_copy
from ftopt.quote.view import alternative_rows
from ftopt.reading.workload_file import load_workload_text
from ftopt.serve import api, pages
from ftopt.serve.revisions import stamped
from ftopt.serve.security import CSRF_COOKIE
from tests.serve.conftest import FIRST_PROJECT, REPO, create, solve

EXAMPLES = REPO / "examples"


def _csrf(client) -> str:
    client.get("/")
    return client.cookies[CSRF_COOKIE]


def test_a_bid_is_made_from_the_form_without_yaml(client):
    form = {
        "csrf": _csrf(client),
        "name": "from-form",
        "runs[0].name": "chat",
        "runs[0].model": "llama-3.1-8b",
        "runs[0].method": "qlora",
        "runs[0].train_tokens": "1e8",
        "site.feed": "230v-16a",
        "site.inlet_c": "25",
        "hardware.gpus": "rtx-pro-6000-se",
    }
    reply = client.post("/bids/new", data=form, follow_redirects=False)
    assert reply.status_code == 303 and reply.headers["location"] == "/bids/1/versions/1"
    workload = client.get("/api/bids/1/versions/1").json()["workload"]
    assert "train_tokens: 100000000" in workload and "rtx-pro-6000-se" in workload


def test_an_error_is_shown_beside_its_field_and_nothing_is_stored(client):
    form = {"csrf": _csrf(client), "name": "x", "runs[0].name": "r", "runs[0].model": "llama-3.1-8b",
            "runs[0].method": "lora", "runs[0].concurrent": "0"}  # fmt: skip
    reply = client.post("/bids/new", data=form)
    assert reply.status_code == 400
    beside = re.search(
        r'<span class="field-error" data-field="runs\[0\].concurrent">([^<]*)</span>', reply.text
    )
    assert beside and beside.group(1).startswith("ftopt: workload:") and "concurrent" in beside.group(1)
    assert client.get("/api/bids").json() == []
    # the page comes back with what was typed, not with the form's defaults
    assert (
        'name="runs[0].concurrent" value="0"' in reply.text and 'name="runs[0].name" value="r"' in reply.text
    )


def test_text_typed_into_a_part_that_loads_when_opened_comes_back_after_an_error(client):
    """A part the bid does not have is sent closed and empty; once the user opened it and typed, an
    error's page draws it whole with the typed text, not as an empty part to load again."""
    assert 'data-path="quote.seller" data-lazy' in client.get("/bids/new").text
    form = {"csrf": _csrf(client), "runs[0].name": "r", "runs[0].model": "llama-3.1-8b",
            "runs[0].method": "lora", "runs[0].concurrent": "0",
            "quote.seller.name": "Example GmbH"}  # fmt: skip
    reply = client.post("/bids/new", data=form)
    assert reply.status_code == 400 and 'name="quote.seller.name" value="Example GmbH"' in reply.text
    assert 'data-path="quote.seller" data-lazy' not in reply.text


def test_every_problem_of_the_form_is_shown_beside_its_own_input(client):
    form = {"csrf": _csrf(client), "runs[0].name": "r", "runs[0].model": "llama-3.1-8b",
            "runs[0].method": "lora", "runs[0].concurrent": "0", "runs[0].seq_len": "-4"}  # fmt: skip
    reply = client.post("/bids/new", data=form)
    beside = dict(re.findall(r'<span class="field-error" data-field="([^"]+)">([^<]*)</span>', reply.text))
    assert set(beside) == {"runs[0].concurrent", "runs[0].seq_len"}
    assert all(html.unescape(line).startswith("ftopt: workload:") for line in beside.values())
    assert "runs[0].seq_len" in beside["runs[0].seq_len"] and "concurrent" in beside["runs[0].concurrent"]


def test_typed_text_is_escaped_in_every_input_after_an_error(client):
    evil = '"><script>alert(1)</script>'
    form = {"csrf": _csrf(client), "name": evil, "quote.customer": evil, "runs[0].name": "r",
            "runs[0].model": "llama-3.1-8b", "runs[0].method": "lora", "runs[0].concurrent": "0"}  # fmt: skip
    reply = client.post("/bids/new", data=form)
    assert reply.status_code == 400 and "<script>alert(1)" not in reply.text
    assert reply.text.count(str(markupsafe.escape(evil))) >= 2  # the name's and the customer's inputs


def test_a_yaml_edit_makes_version_two_and_a_bad_one_shows_the_line(client):
    bid = create(client, FIRST_PROJECT)
    csrf = _csrf(client)
    bad = client.post(f"/bids/{bid}/versions/1/yaml", data={"csrf": csrf, "workload": "runs: [\n"})
    assert bad.status_code == 400 and 'id="yaml-error"' in bad.text and "not valid YAML" in bad.text
    good = FIRST_PROJECT.replace("inlet_c: 27", "inlet_c: 26")
    reply = client.post(
        f"/bids/{bid}/versions/1/yaml", data={"csrf": csrf, "workload": good}, follow_redirects=False
    )
    assert reply.headers["location"] == f"/bids/{bid}/versions/2"
    assert [v["number"] for v in client.get(f"/api/bids/{bid}").json()["versions"]] == [1, 2]


def test_the_result_page_is_the_quote_with_downloads_and_the_comparison(client):
    bid = create(client, FIRST_PROJECT)
    client.put(f"/api/bids/{bid}", content=FIRST_PROJECT.replace("inlet_c: 27", "inlet_c: 22"),
               headers={"content-type": "application/yaml"})  # fmt: skip
    first, second = solve(client, bid, version=1), solve(client, bid, version=2)
    page = client.get(f"/bids/{bid}/versions/1").text
    assert f'data-price="{first["price"]}"' in page and "proven the cheapest" in page
    for fmt in ("html", "json", "yaml", "md", "xlsx", "pdf"):
        assert f'id="download-{fmt}"' in page
    assert 'id="alternatives"' in page and 'id="frontier"' in page
    compared = client.get(f"/bids/{bid}/compare", params={"a": 1, "b": 2}).text
    assert "site.inlet_c" in compared and 'id="price-delta"' in compared
    delta = second["price"] - first["price"]
    assert f"{delta:+,.2f}" in compared


def test_solving_from_the_page_leads_to_the_live_progress_page(client):
    bid = create(client, FIRST_PROJECT)
    form = {"csrf": _csrf(client), "time_limit": "10", "alternatives": "0"}
    reply = client.post(f"/bids/{bid}/versions/1/solve", data=form, follow_redirects=False)
    assert reply.status_code == 303 and reply.headers["location"].startswith("/jobs/")
    job = client.get(reply.headers["location"]).text
    assert 'src="/static/app.js"' in job and 'id="incumbent"' in job
    assert "EventSource" in client.get("/static/app.js").text
    bad = client.post(f"/bids/{bid}/versions/1/solve", data={**form, "time_limit": "soon"})
    assert bad.status_code == 400 and "expected numbers" in bad.text


def test_an_uploaded_file_becomes_a_bid_and_an_exported_bid_imports(client):
    csrf = _csrf(client)
    files = {"file": ("mine.yaml", FIRST_PROJECT.encode(), "application/yaml")}
    reply = client.post("/bids/upload", data={"csrf": csrf}, files=files, follow_redirects=False)
    assert (
        reply.status_code == 303
        and client.get("/api/bids/1").json()["versions"][0]["note"] == "uploaded mine.yaml"
    )
    binary = {"file": ("x.yaml", b"\xff\xfe", "application/yaml")}
    refused = client.post("/bids/upload", data={"csrf": csrf}, files=binary)
    assert refused.status_code == 400 and "expected UTF-8 text" in refused.text
    exported = {"file": ("bid-1.json", client.get("/api/bids/1/export").content, "application/json")}
    imported = client.post("/bids/import", data={"csrf": csrf}, files=exported, follow_redirects=False)
    assert imported.headers["location"] == "/bids/2" and len(client.get("/api/bids").json()) == 2


def test_the_pages_and_the_api_are_routed_and_documented() -> None:
    # Every API route carries the summary its OpenAPI page shows; every page answers GET or POST.
    assert api.router.routes and all(route.summary for route in api.router.routes)  # type: ignore[attr-defined]
    page_paths = {route.path for route in pages.router.routes}  # type: ignore[attr-defined]
    assert {"/", "/bids/{bid_id}", "/jobs/{job_id}", "/bids/{bid_id}/compare"} <= page_paths


def test_the_result_page_states_the_summary_as_every_download_does(client):
    """The page's headline, key figures and other options are the summary's (the buyer's discount
    included), not figures of its own: the quote a presales engineer reads on screen is the one sent."""
    discounted = FIRST_PROJECT + "\nquote:\n  customer: ACME\n  discount_percent: 10\n"
    bid = create(client, discounted)
    solve(client, bid, version=1, alternatives=1)
    stored = client.get(f"/api/bids/{bid}/versions/1/quote", params={"format": "json"})
    plan = Plan.model_validate(stored.json())
    catalogue = load_catalogue()
    _, summary = quote_copy(plan, load_workload_text(stamped(discounted, 1), "bid", catalogue), catalogue)
    assert summary == PlanSummary.model_validate(stored.json()["summary"])  # the download's own summary
    page = html.unescape(client.get(f"/bids/{bid}/versions/1").text)
    assert summary.discount_percent == 10 and summary.headline in page
    assert f'data-price="{summary.price_to_pay}"' in page
    for figure in summary.figures:
        assert f"{figure.label}: {figure.value}" in page, figure.label
    assert summary.bands  # memory per GPU for each copy, wall power for each server
    for band in summary.bands:  # the figure, with its band and basis on hover
        shown = f'{band.subject}, {band.figure}: <abbr title="{band.words}; {band.basis}">{band.shown}</abbr>'
        assert shown in page, band.words
    (option,) = alternative_rows(summary)
    assert summary.alternatives and all(cell in page for cell in option)


def test_the_result_page_lists_what_is_weighed_against_what_it_buys(client):
    """The summary's weighed lines (here CPU offload the solver chose on a tie) are on the page as in
    every download."""
    offload = """
site: {feed: 400v-3p-16a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: full, model: llama-3.1-8b, method: full, optimizer: auto, offload: auto, seq_len: 4096,
        gradient_checkpointing: true, train_tokens: 100000000}]
"""
    bid = create(client, offload)
    solve(client, bid, version=1, what_if=True)  # the offload is weighed against a re-solve without it
    stored = client.get(f"/api/bids/{bid}/versions/1/quote", params={"format": "json"}).json()
    weighed = stored["summary"]["weighed"]
    assert len(weighed) == 1 and weighed[0].startswith("CPU offload of full saves nothing")
    page = html.unescape(client.get(f"/bids/{bid}/versions/1").text)
    assert 'id="weighed"' in page and weighed[0] in page
    plain = create(client, FIRST_PROJECT)
    solve(client, plain, version=1)
    assert 'id="weighed"' not in client.get(f"/bids/{plain}/versions/1").text


def _named(page: str) -> dict[str, str]:
    """The editable inputs and selects of a page by name, with the value each shows."""
    found = {
        m[1]: html.unescape(m[2])
        for m in re.finditer(r'<input type="text" name="([^"]+)" value="([^"]*)"', page)
    }
    for name, body in re.findall(r'<select name="([^"]+)">(.*?)</select>', page):
        chosen = re.search(r"<option selected>([^<]*)</option>", body)
        found[html.unescape(name)] = html.unescape(chosen[1]) if chosen else ""
    return found


def test_the_page_carries_the_bids_fields_and_each_closed_empty_part_loads_when_opened(client):
    """A version page draws the parts the bid has and leaves the closed, empty ones to load when
    opened: together they are every field of the form, each showing what the version holds, and the
    page itself is much smaller than the whole form (the load benchmark's p95)."""
    from ftopt.serve.form import bid_form, inputs

    text = (EXAMPLES / "several-teams.yaml").read_text(encoding="utf-8")
    bid = create(client, text)
    page = client.get(f"/bids/{bid}/versions/1").text.split('id="bid-form">')[1].split("</form>")[0]
    seen = _named(page)
    lazy = re.findall(r'data-path="([^"]+)" data-lazy="(\d+)"', page)
    assert lazy and len(seen) < 0.6 * len(inputs(bid_form(text)))
    while lazy:
        path, depth = lazy.pop()
        part = client.get("/form/section", params={"path": html.unescape(path), "depth": depth})
        assert part.status_code == 200
        fields = _named(part.text)
        assert fields and all(name.startswith(html.unescape(path)) for name in fields)
        assert not set(fields) & set(seen)  # a part is drawn once: on the page or when opened
        seen |= fields
        lazy += re.findall(r'data-path="([^"]+)" data-lazy="(\d+)"', part.text)
    form = {i.path: i.value for i in inputs(bid_form(text)) if i.kind != "fixed"}
    assert seen == form
    assert client.get("/form/section", params={"path": "runs[0].nonsense"}).status_code == 404


def test_the_cached_form_cannot_be_changed_by_a_request() -> None:
    """The form of a text and the blank parts are cached and shared by every request thread."""
    import dataclasses

    import pytest

    from ftopt.serve.form import bid_form, blank_section

    form = bid_form(FIRST_PROJECT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        form.sections[0].present = True  # type: ignore[misc]
    assert isinstance(form.sections, tuple) and isinstance(blank_section("queue").inputs, tuple)


def test_the_result_pages_frontier_is_priced_as_the_buyers_copy(client):
    """With a margin the page states the buyer's copy, so its frontier table shows each point's sell
    price, never the catalogue's cost the solver searched at."""
    text = (EXAMPLES / "deadline.yaml").read_text(encoding="utf-8") + "\nquote:\n  margin_percent: 20\n"
    bid = create(client, text)
    done = solve(client, bid, frontier=True, time_limit=10)
    assert done["state"] == "done" and done["frontier"], done.get("error")
    page = client.get(f"/bids/{bid}/versions/1").text.split('id="frontier"')[1].split("</table>")[0]
    revisions = client.get(f"/bids/{bid}/versions/1").text.split('id="versions"')[1].split("</table>")[0]
    assert "price at catalogue prices" in revisions  # the solver's price: with a margin, the cost
    for point in done["frontier"]:
        assert point["sell_price"] > point["total_price"]
        assert f"<td>{point['sell_price']:,.0f}</td>" in page
        assert f"<td>{point['total_price']:,.0f}</td>" not in page
