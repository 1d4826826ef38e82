"""A server killed mid-solve (SIGKILL) loses nothing committed: after a restart every bid, version
and quote is there, and the solve that was in flight is marked failed, never half-written."""

from __future__ import annotations

import json

import httpx

from ftopt.serve.store import INTERRUPTED
from tests.serve.conftest import FEED_BOUND, FIRST_PROJECT, poll
from tests.serve.server import serving

YAML = {"content-type": "application/yaml"}


def _wait(url: str, job: int, states: tuple[str, ...]) -> dict:
    return poll(lambda path: httpx.get(f"{url}{path}").json(), job, states)


def test_a_kill_mid_solve_loses_no_bid_version_or_quote(tmp_path):
    data = tmp_path / "data"
    with serving(data, "--time-limit", "30") as server:
        url = server.url
        bid = httpx.post(f"{url}/api/bids", content=FIRST_PROJECT, headers=YAML).json()["id"]
        httpx.put(f"{url}/api/bids/{bid}", content=FIRST_PROJECT.replace("27", "26"), headers=YAML)
        job = httpx.post(f"{url}/api/bids/{bid}/solve", json={"version": 1, "what_if": False}).json()["job"]
        done = _wait(url, job, ("done", "failed"))
        assert done["state"] == "done"
        slow = httpx.post(f"{url}/api/bids", content=FEED_BOUND, headers=YAML).json()["id"]
        knobs = {"time_limit": 30, "alternatives": 5}
        in_flight = httpx.post(f"{url}/api/bids/{slow}/solve", json=knobs).json()["job"]
        assert _wait(url, in_flight, ("running", "done"))["state"] == "running"
        server.kill()
    with serving(data) as again:
        url = again.url
        assert {b["id"] for b in httpx.get(f"{url}/api/bids").json()} == {bid, slow}
        assert [v["number"] for v in httpx.get(f"{url}/api/bids/{bid}").json()["versions"]] == [1, 2]
        assert "26" in httpx.get(f"{url}/api/bids/{bid}/versions/2").json()["workload"]
        quote = httpx.get(f"{url}/api/bids/{bid}/versions/1/quote", params={"format": "json"})
        assert json.loads(quote.text)["total_price"] == done["price"]
        failed = httpx.get(f"{url}/api/jobs/{in_flight}").json()
        assert failed["state"] == "failed" and failed["error"] == INTERRUPTED and failed["plan"] is None
