"""Where each bought server stands: its rack and circuit, and the racks report of the plan.

The model proved that the servers' kinds fit the racks as counts; here a tiny CP-SAT model of the
same family (cpsat/racks.py) with the decoded servers' own counts finds one placement, and the
servers of each kind take its slots in plan order. Why solve again rather than read the model's
placement: decoding drops servers the model counted but left empty, and the greedy plan and the
alternatives come from other searches; one small solve serves them all.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.plan import CircuitLoad, RackUse, Server
from ftopt.model.workload import Rack
from ftopt.solver.cpsat.racks import ServerKind, add_rack_capacity, kind_of
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData

#: Seconds for the placement solve: a few kinds over a few dozen circuits take milliseconds.
PLACEMENT_S = 10.0

Place = tuple[int, int]  # (rack index, circuit index)


def place_in_racks(data: ProblemData, layouts: Sequence[ServerLayout]) -> list[Place] | None:
    """(rack, circuit) for each server in order, or None when they do not fit the site's racks."""
    racks = data.workload.site.racks
    if racks is None:
        return None
    kinds = [kind_of(layout.build) for layout in layouts]
    model = cp_model.CpModel()
    counts = {kind: [n] for kind, n in Counter(kinds).items()}
    placed = add_rack_capacity(model, racks, data.catalogue, counts)
    # Fill racks and circuits in the site's order, so that a plan reads rack by rack.
    model.minimize(sum((c.rack * 64 + c.index) * x for (_, c), x in placed.items()))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = PLACEMENT_S
    if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    slots: dict[ServerKind, list[Place]] = defaultdict(list)
    for (kind, circuit), x in sorted(placed.items(), key=lambda item: (item[0][1].rack, item[0][1].index)):
        slots[kind] += [(circuit.rack, circuit.index)] * solver.value(x)
    return [slots[kind].pop(0) for kind in kinds]


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
    uses = []
    for rack in racks:
        mine = [s for s in servers if s.rack == rack.name]
        circuits = []
        for index, feed_id in enumerate(rack.feeds):
            on = [s for s in mine if s.circuit == index]
            circuits.append(
                CircuitLoad(
                    feed=feed_id,
                    usable_w=data.catalogue.feed(feed_id).usable_w,
                    load_w=sum(s.power_w for s in on),
                    servers=[s.id for s in on],
                )
            )
        uses.append(
            RackUse(
                name=rack.name,
                units=rack.units,
                units_used=sum(units[s.id] for s in mine),
                redundant=rack.redundant,
                load_w=sum(s.power_w for s in mine),
                circuits=circuits,
            )
        )
    return uses
