"""Where each bought server stands: its rack and circuit, and the racks report of the plan.

The model proved that the servers' kinds fit the racks as counts; here the decoded servers are
placed: first fit decreasing, or, where it fails, a small CP-SAT model of the same family
(cpsat/racks.py) with the decoded servers' own counts. Why place again rather than read the model's
placement: decoding drops servers the model counted but left empty, and the greedy plan and the
alternatives come from other searches; one placement step serves them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from ftopt.model.plan import CircuitLoad, RackUse, Server
from ftopt.model.workload import Rack
from ftopt.solver.cpsat.families import RACKS
from ftopt.solver.cpsat.racks import Place
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData


def place_in_racks(data: ProblemData, layouts: Sequence[ServerLayout]) -> list[Place] | None:
    """(rack, circuit) for each server in order, or None when they do not fit the site's racks (the
    racks family's placement, with every rack limit a family registers)."""
    return RACKS.place(data, [layout.build for layout in layouts])


def racked(data: ProblemData, server: Server, place: Place) -> Server:
    """The server standing at `place`: its rack, its circuit and that circuit's feed."""
    racks = data.workload.site.racks or ()
    rack, circuit = place
    feed = data.catalogue.feed(racks[rack].feeds[circuit])
    return server.model_copy(
        update={"rack": racks[rack].name, "circuit": circuit, "feed": feed.id, "feed_usable_w": feed.usable_w}
    )


def rack_uses(data: ProblemData, servers: Sequence[Server], layouts: Sequence[ServerLayout]) -> list[RackUse]:
    """The plan's racks report: units used and the load on each circuit, every rack of the site."""
    racks: Sequence[Rack] = data.workload.site.racks or ()
    units = {s.id: layout.build.chassis.rack_units or 0 for s, layout in zip(servers, layouts, strict=True)}
    return [_rack_use(data, rack, [s for s in servers if s.rack == rack.name], units) for rack in racks]


def _rack_use(data: ProblemData, rack: Rack, mine: list[Server], units: dict[str, int]) -> RackUse:
    """One rack's use by the servers standing in it: units, watts, and each circuit's load."""
    return RackUse(
        name=rack.name,
        units=rack.units,
        units_used=sum(units[s.id] for s in mine),
        redundant=rack.redundant,
        load_w=sum(s.power_w for s in mine),
        circuits=[
            _circuit_load(data, feed_id, [s for s in mine if s.circuit == i])
            for i, feed_id in enumerate(rack.feeds)
        ],
    )


def _circuit_load(data: ProblemData, feed_id: str, on: list[Server]) -> CircuitLoad:
    """One circuit's feed, its usable watts and the servers drawing from it."""
    return CircuitLoad(
        feed=feed_id,
        usable_w=data.catalogue.feed(feed_id).usable_w,
        load_w=sum(s.power_w for s in on),
        servers=[s.id for s in on],
    )
