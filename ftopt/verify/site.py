"""Rules of the site: power caps, the server's draw against its feed, the feed itself, inlet air and
the coolant supply of liquid-cooled servers.
Racks and their circuits have rules of their own (racks.py).

Power is the draw at the wall of docs/design.md: the parts (cards at their cap, CPU TDP, DIMMs,
drives, fabric NICs, the chassis' fans and baseboard) over the supplies' efficiency, rounded up to the
watt; where the chassis carries a vendor's published system maximum, that figure (scaled to the
server's cards: less the cards' difference from the vendor's) is a floor under the parts. Both the
stated and the re-computed draw must stay within the feed's usable watts, the supplies left when the
redundant ones fail must carry the load, and the feed must be the one the site has at every position.
Re-computed here, never taken from the model's power module.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ftopt.verify.context import Context, Parts
from ftopt.verify.violation import EPS, Violation, close, num


def parts_load_w(p: Parts) -> float | None:
    """What the parts draw from the supplies at full load: cards at their setting, CPU TDP, DIMMs,
    drives, fabric NICs and the chassis' own fans and baseboard; None if a part does not resolve."""
    s, cpu, chassis, dimm, boot = p.server, p.cpu, p.chassis, p.dimm, p.boot_drive
    if p.gpu is None or cpu is None or chassis is None or dimm is None or boot is None:
        return None
    if s.data_drive_count and p.data_drive is None:
        return None
    watts = [
        float(s.gpu_power_cap_w * s.gpu_count),
        float(cpu.tdp_w * s.cpu_count),
        dimm.watts * s.dimm_count,
        boot.watts,
        p.data_drive.watts * s.data_drive_count if p.data_drive else 0.0,
        p.nic.power_w * s.nic_count if p.nic else 0.0,
        chassis.base_watts,
    ]
    return sum(watts)


def vendor_floor_w(p: Parts) -> float | None:
    """The vendor's published system maximum (the chassis' published_max) as a load on the supplies,
    for this server's cards: the figure at the wall times the supplies' efficiency, less what the
    vendor's cards draw beyond these (a power cap); None where none is published."""
    c = p.chassis
    top = c.published_max if c is not None else None
    if c is None or top is None:
        return None
    s = p.server
    return top.watts * c.psu_efficiency - (top.gpu_w * top.gpu_count - s.gpu_power_cap_w * s.gpu_count)


def supplies_load_w(p: Parts) -> float | None:
    """What the power rules hold the supplies to: the parts' draw, or the vendor's scaled maximum
    where it is larger (docs/design.md, "vendor floor"); None if a part does not resolve."""
    parts = parts_load_w(p)
    if parts is None:
        return None
    floor = vendor_floor_w(p)
    return parts if floor is None else max(parts, floor)


def _at_wall(p: Parts, load: float | None) -> int | None:
    if load is None or p.chassis is None:
        return None
    return math.ceil(round(load / p.chassis.psu_efficiency, 6))


def server_power_w(p: Parts) -> int | None:
    """Full-load draw at the wall: the supplies' load over their efficiency, rounded up."""
    return _at_wall(p, supplies_load_w(p))


def carrying_w(p: Parts) -> int | None:
    """What the supplies deliver with the redundant ones failed: all of them (none), all but one
    (N+1) or half (N+N)."""
    c = p.chassis
    if c is None:
        return None
    failed = {"none": 0, "N+1": 1, "N+N": c.psu_count // 2}[c.psu_redundancy]
    return (c.psu_count - failed) * c.psu_watts


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


#: The parts' estimate and the vendor's scaled maximum at the wall, and which one the draw is.
_Figures = tuple[int | None, int | None, str]


def check_power_estimate(ctx: Context) -> Iterator[Violation]:
    """The stated draw and supplies' load are the re-computed ones, and so are the two figures the
    draw is the larger of (the parts' estimate and the vendor's scaled maximum) and which one it is."""
    for p in ctx.servers():
        s, power, load = p.server, server_power_w(p), supplies_load_w(p)
        if power is None or load is None or p.chassis is None:
            continue
        if s.power_w != power or s.psu_load_w != math.ceil(round(load, 6)):
            yield Violation(
                "power-estimate",
                p.subject,
                f"{s.power_w} W at the wall, supplies {s.psu_load_w} W",
                f"supplies {num(load)} W / efficiency {num(p.chassis.psu_efficiency)} = {power} W",
            )
        stated: _Figures = (s.parts_power_w, s.vendor_max_w, s.power_basis)
        derived = _derived_figures(p)
        if s.parts_power_w is not None and stated != derived:
            yield Violation("power-estimate", p.subject, _figures_words(stated), _figures_words(derived))


def _derived_figures(p: Parts) -> _Figures:
    """The parts' estimate and the vendor's scaled maximum at the wall, and which one is planned."""
    parts, floor = parts_load_w(p), vendor_floor_w(p)
    basis = "vendor maximum" if floor is not None and parts is not None and floor > parts else "parts"
    return (_at_wall(p, parts), _at_wall(p, floor), basis)


def _figures_words(f: _Figures) -> str:
    vendor = "no vendor maximum" if f[1] is None else f"vendor maximum {f[1]} W"
    return f"parts {f[0]} W, {vendor}, planned with the {f[2]}"


def check_power_feed(ctx: Context) -> Iterator[Violation]:
    """The draw, stated and re-computed, stays within the feed's usable watts."""
    for p in ctx.servers():
        s = p.server
        draw = max(s.power_w, server_power_w(p) or 0)
        usable = min(s.feed_usable_w, p.feed.usable_w) if p.feed else s.feed_usable_w
        if draw > usable:
            yield Violation("power-feed", p.subject, f"{draw} W", f"feed {s.feed} gives {usable} W usable")


def check_power_supplies(ctx: Context) -> Iterator[Violation]:
    """The supplies left when the redundant ones fail carry the load; the plan states the chassis'
    supplies as the catalogue has them."""
    for p in ctx.servers():
        s, c, capacity = p.server, p.chassis, carrying_w(p)
        if c is None or capacity is None:
            continue
        load = max(float(s.psu_load_w), supplies_load_w(p) or 0.0)
        if load > capacity + EPS:
            yield Violation(
                "power-supplies",
                p.subject,
                f"{num(load)} W from the supplies",
                f"{c.psu_count} × {c.psu_watts} W {c.psu_redundancy} carry {capacity} W",
            )
        stated = (s.psu_watts, s.psu_count, s.psu_redundancy, s.psu_capacity_w)
        if stated != (c.psu_watts, c.psu_count, c.psu_redundancy, capacity):
            yield Violation(
                "power-supplies",
                p.subject,
                f"supplies {s.psu_count} × {s.psu_watts} W {s.psu_redundancy} ({s.psu_capacity_w} W)",
                f"{c.id} has {c.psu_count} × {c.psu_watts} W {c.psu_redundancy} ({capacity} W)",
            )


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


def check_outlet(ctx: Context) -> Iterator[Violation]:
    """With `site.policy.outlet`, each cord left when the redundant supplies fail carries the server's
    draw (stated or re-computed, the larger) within the outlet's volts × amps (families/outlet.yaml)."""
    outlet = ctx.workload.site.policy.get("outlet")
    data = ctx.catalogue.families.get("outlet")
    if not isinstance(outlet, str) or data is None or outlet not in data.ids:
        return
    item = data.item(outlet)
    rating = float(item["volts"]) * float(item["amps"])
    for p in ctx.servers():
        c = p.chassis
        if c is None:
            continue
        cords = {"N+N": c.psu_count // 2, "N+1": c.psu_count - 1}.get(c.psu_redundancy, c.psu_count)
        draw = max(p.server.power_w, server_power_w(p) or 0) / max(1, cords)
        if draw > rating + EPS:
            carry = f"{outlet} outlets carry {num(rating)} W"
            yield Violation("outlet", p.subject, f"{num(draw)} W a cord", carry)


#: The site's rules in the order their violations are listed (the verifier's RULES takes them as one
#: block): a rule family whose rule is the site's adds its check here, and only here.
RULES = (
    check_power_cap,
    check_power_estimate,
    check_power_feed,
    check_power_supplies,
    check_feed,
    check_inlet,
    check_coolant,
    check_outlet,
)
