"""50 concurrent API clients on loopback for a short, bounded time: no bid or version is lost, no
request fails, solves beyond the queue are refused (429) rather than run, and the p95 time of the
requests that do not solve stays under 300 ms. `python -m benchmarks.serve_load` runs it longer."""

from __future__ import annotations

from benchmarks.serve_load import run

CLIENTS = 50
SECONDS = 12.0
P95_LIMIT_MS = 300.0
#: Seconds between one client's requests: a script polling, or a person clicking fast.
THINK_S = 0.5


def test_fifty_clients_lose_nothing_and_pages_stay_fast(tmp_path):
    figures = run(CLIENTS, SECONDS, workers=1, think_s=THINK_S, data=tmp_path / "data")
    assert figures["lost"] == 0 and figures["errors"] == 0
    assert figures["bids"] >= CLIENTS and figures["versions"] == 2 * figures["bids"]
    assert figures["solves_queued"] >= 1 and figures["solves_refused"] >= 1  # a flood is queued, then refused
    assert figures["p95_ms"] < P95_LIMIT_MS, figures
