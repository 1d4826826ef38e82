"""Owned servers on generated workloads (issue 20): when the inventory already runs the workload the
bid is 0, and adding owned servers never raises the bid."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from ftopt.model.plan import Plan, Server
from tests.properties.support import describe, outcome, price_cents, proven
from tests.strategies import dump, to_workload, workload_dicts

#: Of the examples drawn, at least this many must reach each comparison.
MIN_COMPARED = 5
FIELDS = ("chassis", "gpu", "gpu_count", "cpu", "cpu_count", "dimm", "dimm_count", "data_drive",
          "data_drive_count", "boot_drive", "bridge", "bridge_count")  # fmt: skip


def _entries(servers: list[Server]) -> list[dict[str, Any]]:
    """Servers of a plan as inventory entries (as a user pastes them), one per server."""
    return [{**{f: getattr(s, f) for f in FIELDS}, "count": 1} for s in servers if s.nic is None]


def _single_server(plan: Plan) -> bool:
    return all(s.nic is None for s in plan.servers)


def test_an_inventory_that_runs_the_workload_bids_nothing() -> None:
    compared: list[int] = []

    @settings(max_examples=10, deadline=None)
    @given(workload_dicts(max_runs=2, max_concurrent=2))
    def check(data: dict[str, Any]) -> None:
        note(dump(data))
        before = outcome(to_workload(data))
        if before is None or not _single_server(before):
            event("no single-server plan to own")
            return
        after = outcome(to_workload({**data, "inventory": _entries(before.servers)}))
        note(describe(after))
        assert after is not None and proven(after)
        assert price_cents(after) == 0
        assert all(s.owned for s in after.servers)
        compared.append(1)

    check()
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} examples owned their plan"


def test_adding_owned_servers_never_raises_the_bid() -> None:
    compared: list[int] = []

    @settings(max_examples=10, deadline=None)
    @given(workload_dicts(max_runs=2, max_concurrent=2), st.data())
    def check(data: dict[str, Any], draw: st.DataObject) -> None:
        note(dump(data))
        before = outcome(to_workload(data))
        if before is None or not proven(before) or not _single_server(before):
            return
        # Own some of the servers the bid would buy, or some of another bid's (which may not help).
        other = draw.draw(workload_dicts(max_runs=1, max_concurrent=2))
        donor = before if draw.draw(st.booleans()) else outcome(to_workload({**other, "site": data["site"]}))
        if donor is None or not _single_server(donor):
            return
        entries = _entries(donor.servers)
        chosen = entries[: draw.draw(st.integers(1, len(entries)))]
        after = outcome(to_workload({**data, "inventory": chosen}))
        note(describe(after))
        if after is None or not proven(after):
            event("not proven with the inventory")
            return
        assert price_cents(after) <= price_cents(before)
        compared.append(1)

    check()
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} examples compared the two bids"
