"""50 concurrent API clients on loopback for a short, bounded time: no bid or version is lost, no
request fails, and solves beyond the queue are refused (429) rather than run.

The page times are measured, not asserted: timing belongs in benchmarks/, where `python -m
benchmarks.serve_load` reports p50/p95 against the 300 ms target (missed since the schema-drawn
form: p95 about 360-450 ms on an idle 2-core machine, 48 ms before it)."""

from __future__ import annotations

from benchmarks.serve_load import run

CLIENTS = 50
SECONDS = 12.0
#: Seconds between one client's requests: a script polling, or a person clicking fast.
THINK_S = 0.5


def test_fifty_clients_lose_nothing_and_a_flood_is_refused(tmp_path):
    figures = run(CLIENTS, SECONDS, workers=1, think_s=THINK_S, data=tmp_path / "data")
    assert figures["lost"] == 0 and figures["errors"] == 0
    assert figures["bids"] >= CLIENTS and figures["versions"] == 2 * figures["bids"]
    assert figures["solves_queued"] >= 1 and figures["solves_refused"] >= 1  # a flood is queued, then refused
    assert figures["requests"] >= CLIENTS  # every client was served; its times are judged in benchmarks/
