"""Rules of a site given as racks: where each server stands, the rack units and the circuits' load.

Re-derived from the plan's `rack` and `circuit` of each server, the workload's racks and the
catalogue's chassis heights and feeds. A circuit's load is the sum of its servers' full-load draw,
each taken as the larger of the stated and the re-computed figure (so a misreported draw cannot hide
an overload); it must stay within the feed's usable watts (its derated share). In a redundant rack
every circuit must carry the whole rack alone. A liquid-cooled server stands only in a rack with a
liquid loop, whose liquid_kw carries the full-load draw of its liquid-cooled servers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ftopt.model.plan import CircuitLoad, RackUse, Server
from ftopt.model.workload import Rack
from ftopt.verify.context import Context, Parts
from ftopt.verify.site import server_power_w
from ftopt.verify.violation import Violation


@dataclass
class _Filled:
    """What the plan puts in one rack, re-derived: servers per circuit, their draw and height."""

    rack: Rack
    units_used: int = 0
    servers: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    loads: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def load_w(self) -> int:
        return sum(self.loads.values())


def _draw(ctx: Context, p: Parts) -> int:
    """The server's draw: the larger of the stated and the re-computed full-load figure."""
    return max(p.server.power_w, server_power_w(p) or 0)


def _placed(ctx: Context) -> dict[str, _Filled]:
    """Each rack of the site with the servers the plan places in it (valid places only)."""
    racks = {rack.name: _Filled(rack) for rack in ctx.workload.site.racks or ()}
    for p in ctx.servers():
        s = p.server
        filled = racks.get(s.rack or "")
        if filled is None or s.circuit is None or s.circuit >= len(filled.rack.feeds):
            continue
        filled.units_used += p.chassis.rack_units or 0 if p.chassis else 0
        filled.servers[s.circuit].append(s.id)
        filled.loads[s.circuit] += _draw(ctx, p)
    return racks


def check_rack_places(ctx: Context) -> Iterator[Violation]:
    """With racks, each server names a rack of the site and a circuit of it, and runs from that
    circuit's feed; without racks, no server names one."""
    racks = {rack.name: rack for rack in ctx.workload.site.racks or ()}
    for p in ctx.servers():
        s = p.server
        if not racks:
            if s.rack is not None or s.circuit is not None:
                yield Violation("rack", p.subject, f"rack {s.rack}", "the site has no racks (feed only)")
            continue
        fault = _place_fault(s, racks)
        if fault is not None:
            yield Violation("rack", p.subject, *fault)


def _place_fault(s: Server, racks: dict[str, Rack]) -> tuple[str, str] | None:
    """The first fault of a server's place: an unknown rack, a circuit the rack lacks, or a feed
    other than that circuit's."""
    rack = racks.get(s.rack or "")
    if rack is None:
        return f"rack {s.rack}", f"one of the site's racks: {', '.join(racks)}"
    if s.circuit is None or not 0 <= s.circuit < len(rack.feeds):
        return f"circuit {s.circuit}", f"a circuit 0 to {len(rack.feeds) - 1} of rack {rack.name}"
    if s.feed != rack.feeds[s.circuit]:
        return f"feed {s.feed}", f"circuit {s.circuit} of rack {rack.name} is {rack.feeds[s.circuit]}"
    return None


def check_rack_units(ctx: Context) -> Iterator[Violation]:
    """The chassis in a rack fit its units, and every placed chassis has a known height."""
    for p in ctx.servers():
        if p.server.rack is not None and p.chassis is not None and p.chassis.rack_units is None:
            yield Violation("rack-units", p.subject, f"chassis {p.chassis.id}", "a chassis with rack_units")
    for filled in _placed(ctx).values():
        if filled.units_used > filled.rack.units:
            yield Violation(
                "rack-units",
                f"rack {filled.rack.name}",
                f"{filled.units_used} U of servers",
                f"the rack has {filled.rack.units} U",
            )


def check_circuit_load(ctx: Context) -> Iterator[Violation]:
    """Each circuit carries its servers within its usable watts; a redundant rack's every circuit
    carries the whole rack."""
    for filled in _placed(ctx).values():
        rack = filled.rack
        for index, feed_id in enumerate(rack.feeds):
            if not ctx.catalogue.has("feeds", feed_id):
                continue
            usable = ctx.catalogue.feed(feed_id).usable_w
            load = filled.load_w if rack.redundant else filled.loads.get(index, 0)
            if load > usable:
                what = "the whole rack (redundant)" if rack.redundant else "its servers"
                yield Violation(
                    "circuit-load",
                    f"rack {rack.name} circuit {index}",
                    f"{load} W for {what}",
                    f"{feed_id} gives {usable} W usable",
                )


def check_liquid_loop(ctx: Context) -> Iterator[Violation]:
    """A liquid-cooled server stands in a rack with a liquid loop, and each loop carries the full-load
    draw of its rack's liquid-cooled servers within its liquid_kw (all their heat taken as the loop's)."""
    racks = ctx.workload.site.racks or ()
    loads: dict[str, int] = defaultdict(int)
    for p in (p for p in ctx.servers() if _liquid_in_rack(p)):
        rack = next((r for r in racks if r.name == p.server.rack), None)
        if rack is not None and rack.liquid_kw is None:
            yield Violation(
                "liquid-loop", p.subject, f"liquid-cooled in rack {rack.name}", "a rack with liquid_kw"
            )
        loads[p.server.rack or ""] += _draw(ctx, p)
    yield from _loop_overloads(racks, loads)


def _loop_overloads(racks: Sequence[Rack], loads: dict[str, int]) -> Iterator[Violation]:
    """Each rack's liquid loop carries the draw of its liquid-cooled servers."""
    for rack in racks:
        load = loads.get(rack.name, 0)
        if rack.liquid_kw is not None and load > rack.liquid_kw * 1000:
            yield Violation(
                "liquid-loop",
                f"rack {rack.name}",
                f"{load} W to the liquid loop",
                f"liquid_kw {rack.liquid_kw:g}",
            )


def _liquid_in_rack(p: Parts) -> bool:
    """A server of a liquid-cooled chassis placed in a rack: its heat goes to that rack's loop."""
    return p.chassis is not None and p.chassis.cooling == "liquid" and p.server.rack is not None


def _expected_use(ctx: Context, filled: _Filled) -> RackUse:
    """The rack's line of the plan as it should read."""
    circuits = []
    for index, feed_id in enumerate(filled.rack.feeds):
        usable = ctx.catalogue.feed(feed_id).usable_w if ctx.catalogue.has("feeds", feed_id) else 0
        circuits.append(
            CircuitLoad(
                feed=feed_id,
                usable_w=usable,
                load_w=filled.loads.get(index, 0),
                servers=filled.servers.get(index, []),
            )
        )
    return RackUse(
        name=filled.rack.name,
        units=filled.rack.units,
        units_used=filled.units_used,
        redundant=filled.rack.redundant,
        load_w=filled.load_w,
        circuits=circuits,
    )


def check_rack_report(ctx: Context) -> Iterator[Violation]:
    """The plan's `racks` list states each rack of the site, its units used and each circuit's load."""
    expected = [_expected_use(ctx, filled) for filled in _placed(ctx).values()]
    stated = {use.name: use for use in ctx.plan.racks}
    for want in expected:
        got = stated.pop(want.name, None)
        if got is None:
            yield Violation("rack-report", f"rack {want.name}", "missing from the plan's racks", "one entry")
        elif got != want:
            yield Violation("rack-report", f"rack {want.name}", _first_difference(got, want), "as re-derived")
    for name in stated:
        yield Violation("rack-report", f"rack {name}", "in the plan's racks", "a rack of the site")


def _first_difference(got: RackUse, want: RackUse) -> str:
    """`units_used 12 (re-derived 16)` for the first field that differs."""
    for name in ("units", "units_used", "redundant", "load_w"):
        if getattr(got, name) != getattr(want, name):
            return f"{name} {getattr(got, name)} (re-derived {getattr(want, name)})"
    for index, (a, b) in enumerate(zip(got.circuits, want.circuits, strict=False)):
        if a != b:
            return f"circuit {index}: {_circuit(a)} (re-derived {_circuit(b)})"
    return f"{len(got.circuits)} circuits (re-derived {len(want.circuits)})"


def _circuit(load: CircuitLoad) -> str:
    return f"{load.feed} {load.usable_w} W usable, {load.load_w} W on {', '.join(load.servers) or 'none'}"
