"""Owned servers: each one the plan marks `owned` is one of the workload's inventory, part for part,
and no inventory entry is used more often than it is owned."""

from __future__ import annotations

from collections.abc import Iterator

from ftopt.model.plan import Server
from ftopt.model.workload import OwnedServer
from ftopt.verify.context import Context
from ftopt.verify.violation import Violation

#: The fields an inventory entry and a plan's server share, compared one by one.
FIELDS = ("chassis", "gpu", "gpu_count", "cpu", "cpu_count", "dimm", "dimm_count", "data_drive",
          "data_drive_count", "boot_drive", "bridge", "bridge_count")  # fmt: skip


def _matches(server: Server, entry: OwnedServer) -> bool:
    return all(getattr(server, f) == getattr(entry, f) for f in FIELDS) and server.nic is None


def check_owned(ctx: Context) -> Iterator[Violation]:
    """Owned servers are the inventory's, and each entry is used at most `count` times."""
    entries = ctx.workload.inventory
    used = [0] * len(entries)
    for p in ctx.servers():
        if not p.server.owned:
            continue
        match = next((i for i, e in enumerate(entries) if _matches(p.server, e) and used[i] < e.count), None)
        if match is None:
            known = any(_matches(p.server, e) for e in entries)
            allowed = "more than the inventory owns" if known else "no inventory entry has these parts"
            yield Violation("owned", p.subject, "marked owned", allowed)
        else:
            used[match] += 1
