"""Rules of the site: power caps, the server's draw against its feed, the feed itself, inlet air and
the coolant supply of liquid-cooled servers.
Racks and their circuits have rules of their own (racks.py).

Power is the full-load estimate of docs/design.md: (cards at their cap + CPU TDP × CPUs) × (1 + overhead),
rounded up to the watt. Both the stated and the re-computed draw must stay within the feed's usable
watts, and the feed must be the one the site has at every position.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ftopt.verify.context import Context, Parts
from ftopt.verify.violation import EPS, Violation, close, num


def overhead_of(ctx: Context, p: Parts) -> float:
    """The chassis' own overhead share (an HGX baseboard's), else the rules'."""
    own = p.chassis.power_overhead if p.chassis else None
    return ctx.catalogue.rules.power_overhead if own is None else own


def server_power_w(p: Parts, overhead: float) -> int | None:
    """Full-load draw of the server at its power cap, or None if its card or CPU is unknown."""
    s = p.server
    if p.gpu is None or p.cpu is None:
        return None
    nics = math.ceil(s.nic_count * p.nic.power_w) if p.nic else 0  # fabric NICs at their own rating
    return math.ceil((s.gpu_power_cap_w * s.gpu_count + p.cpu.tdp_w * s.cpu_count) * (1 + overhead)) + nics


def check_power_cap(ctx: Context) -> Iterator[Violation]:
    """The cards run at full power or at one of the caps they accept."""
    for p in ctx.servers():
        settings = p.gpu.power_settings_w if p.gpu else None
        if settings is not None and p.server.gpu_power_cap_w not in settings:
            yield Violation(
                "power-cap",
                p.subject,
                f"{p.server.gpu_power_cap_w} W per card",
                f"{p.server.gpu} runs at {' or '.join(f'{w} W' for w in settings)}",
            )


def check_power_estimate(ctx: Context) -> Iterator[Violation]:
    """The stated draw is the re-computed one."""
    for p in ctx.servers():
        overhead = overhead_of(ctx, p)
        s, power = p.server, server_power_w(p, overhead)
        if power is not None and p.cpu is not None and s.power_w != power:
            yield Violation(
                "power-estimate",
                p.subject,
                f"{s.power_w} W",
                f"(cards {s.gpu_count} × {s.gpu_power_cap_w} W + CPUs {s.cpu_count} × {p.cpu.tdp_w} W)"
                f" × {num(1 + overhead)}"
                + (f" + NICs {s.nic_count} × {num(p.nic.power_w)} W" if p.nic and s.nic_count else "")
                + f" = {power} W",
            )


def check_power_feed(ctx: Context) -> Iterator[Violation]:
    """The draw, stated and re-computed, stays within the feed's usable watts."""
    for p in ctx.servers():
        s = p.server
        draw = max(s.power_w, server_power_w(p, overhead_of(ctx, p)) or 0)
        usable = min(s.feed_usable_w, p.feed.usable_w) if p.feed else s.feed_usable_w
        if draw > usable:
            yield Violation("power-feed", p.subject, f"{draw} W", f"feed {s.feed} gives {usable} W usable")


def check_feed(ctx: Context) -> Iterator[Violation]:
    """The server runs from the site's feed, and its usable watts are the feed's."""
    site_feed = ctx.workload.site.feed
    racks = ctx.workload.site.racks is not None  # each server's circuit names its feed (racks.py)
    for p in ctx.servers():
        s = p.server
        if not racks and s.feed != site_feed:
            yield Violation(
                "feed", p.subject, f"feed {s.feed}", f"the site has {site_feed} at every position"
            )
        if p.feed and s.feed_usable_w != p.feed.usable_w:
            yield Violation(
                "feed",
                p.subject,
                f"feed_usable_w {s.feed_usable_w}",
                f"{p.feed.id} gives {p.feed.usable_w} W",
            )


def check_inlet(ctx: Context) -> Iterator[Violation]:
    """The site's inlet air is within what card, chassis and the pair accept; the plan states the limit.
    A liquid-cooled chassis' cards answer to the coolant (`check_coolant`), its own air parts to the inlet."""
    inlet = ctx.workload.site.inlet_c
    for p in ctx.servers():
        if p.gpu is None or p.chassis is None:
            continue
        pair = p.chassis.inlet_limits.get(p.gpu.id, math.inf)  # the chassis qualifies this card cooler
        card = p.gpu.max_inlet_c if p.chassis.cooling == "air" else math.inf  # cold plates: the coolant's
        limit = min(card, p.chassis.max_inlet_c, pair)
        if inlet > limit + EPS:
            yield Violation(
                "inlet",
                p.subject,
                f"site inlet {num(inlet)} °C",
                f"{p.gpu.id} in {p.chassis.id} accepts at most {num(limit)} °C",
            )
        if not close(p.server.max_inlet_c, limit, 0):
            yield Violation(
                "inlet",
                p.subject,
                f"max_inlet_c {num(p.server.max_inlet_c)}",
                f"{p.gpu.id} in {p.chassis.id} accepts at most {num(limit)} °C",
            )


def check_coolant(ctx: Context) -> Iterator[Violation]:
    """A liquid-cooled server needs the site's coolant supply, no warmer than its chassis takes."""
    coolant = ctx.workload.site.coolant_c
    for p in ctx.servers():
        if p.chassis is None or p.chassis.cooling != "liquid":
            continue
        most = p.chassis.coolant_max_c or 0.0
        if coolant is None:
            yield Violation("coolant", p.subject, f"liquid-cooled {p.chassis.id}", "a site with coolant_c")
        elif coolant > most + EPS:
            yield Violation(
                "coolant",
                p.subject,
                f"site coolant {num(coolant)} °C",
                f"{p.chassis.id} takes at most {num(most)} °C",
            )
