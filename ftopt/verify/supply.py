"""Rules on what can be bought: no part beyond its stock, none that arrives after the delivery date.

- stock: the units of each part a server's build fixes (chassis, cards, bridges, CPUs, boot drive,
  fabric NICs), counted from the servers' own fields over the whole plan, are at most the price
  list's `stock` for that part.
- lead-time: every part of every server (memory and drives too) has a `lead_weeks` within the
  site's `delivery_weeks`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ftopt.model.plan import Server
from ftopt.verify.context import Context
from ftopt.verify.violation import Violation, num


def _fixed_parts(server: Server) -> Counter[str]:
    """Units of the parts the server's build fixes, read off its fields."""
    parts: Counter[str] = Counter({server.chassis: 1, server.boot_drive: 1})
    parts[server.gpu] += server.gpu_count
    parts[server.cpu] += server.cpu_count
    if server.bridge:
        parts[server.bridge] += server.bridge_count
    if server.nic:
        parts[server.nic] += server.nic_count
    return parts


def check_stock(ctx: Context) -> Iterator[Violation]:
    """No part is bought beyond its stock."""
    used: Counter[str] = Counter()
    for p in ctx.servers():
        used.update(_fixed_parts(p.server))
    stock = {price.item: price.stock for price in ctx.catalogue.prices if price.stock is not None}
    for item, count in sorted(used.items()):
        if item in stock and count > stock[item]:
            yield Violation(
                "stock", f"part {item}", f"{count} units over all servers", f"{stock[item]} in stock"
            )


def check_lead_time(ctx: Context) -> Iterator[Violation]:
    """Every part arrives within the site's delivery weeks."""
    weeks = ctx.workload.site.delivery_weeks
    if weeks is None:
        return
    lead = {price.item: price.lead_weeks for price in ctx.catalogue.prices if price.lead_weeks is not None}
    for p in ctx.servers():
        s = p.server
        parts = {s.chassis, s.gpu, s.cpu, s.dimm, s.data_drive, s.boot_drive, s.bridge, s.nic} - {None}
        for item in sorted(i for i in parts if i is not None):
            if item in lead and lead[item] > weeks:
                yield Violation(
                    "lead-time", p.subject, f"{item} arrives in {num(lead[item])} weeks",
                    f"the site needs delivery within {num(weeks)}",
                )  # fmt: skip
