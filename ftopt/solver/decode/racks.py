"""Where each bought server stands: its rack and circuit, and the racks report of the plan.

The model proved that the servers' kinds fit the racks as counts; here the decoded servers are
placed: first fit decreasing, or, where it fails, a small CP-SAT model of the same family
(cpsat/racks.py) with the decoded servers' own counts. Why place again rather than read the model's
placement: decoding drops servers the model counted but left empty, and the greedy plan and the
alternatives come from other searches; one placement step serves them all.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.model.plan import CircuitLoad, RackUse, Server
from ftopt.model.workload import Rack
from ftopt.solver.cpsat.racks import Circuit, ServerKind, add_rack_capacity, circuits_of, kind_of
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData

#: Seconds for the placement solve: a few kinds over a few dozen circuits take milliseconds.
PLACEMENT_S = 10.0

Place = tuple[int, int]  # (rack index, circuit index)


def place_in_racks(data: ProblemData, layouts: Sequence[ServerLayout]) -> list[Place] | None:
    """(rack, circuit) for each server in order, or None when they do not fit the site's racks.

    First fit decreasing first (hungriest servers first, racks and circuits in the site's order):
    it fills racks in order and answers large sites in milliseconds. Only when it fails does a small
    CP-SAT model of the same family decide, since first fit can miss a packing that exists.
    """
    racks = data.workload.site.racks
    if racks is None:
        return None
    kinds = [kind_of(layout.build) for layout in layouts]
    circuits = circuits_of(racks, data.catalogue)
    return first_fit(racks, circuits, kinds) or exact_placement(data.catalogue, racks, kinds)


def first_fit(racks: Sequence[Rack], circuits: list[Circuit], kinds: list[ServerKind]) -> list[Place] | None:
    """Each server, hungriest first, on the first circuit with room for its watts and units."""
    units = [0] * len(racks)
    loads = {(c.rack, c.index): 0 for c in circuits}
    racked_w = [0] * len(racks)
    places: list[Place | None] = [None] * len(kinds)
    for i in sorted(range(len(kinds)), key=lambda i: (-kinds[i].power_w, -kinds[i].units)):
        kind = kinds[i]
        for c in circuits:
            rack = racks[c.rack]
            if units[c.rack] + kind.units > rack.units:
                continue
            if rack.redundant:
                weakest = min(x.usable_w for x in circuits if x.rack == c.rack)
                if racked_w[c.rack] + kind.power_w > weakest:
                    continue
            elif loads[c.rack, c.index] + kind.power_w > c.usable_w:
                continue
            units[c.rack] += kind.units
            loads[c.rack, c.index] += kind.power_w
            racked_w[c.rack] += kind.power_w
            places[i] = (c.rack, c.index)
            break
        else:
            return None
    return [p for p in places if p is not None]


def exact_placement(
    catalogue: Catalogue, racks: Sequence[Rack], kinds: list[ServerKind]
) -> list[Place] | None:
    """The placement CP-SAT finds for these servers' counts, servers taking its slots in order."""
    model = cp_model.CpModel()
    counts = {kind: [n] for kind, n in Counter(kinds).items()}
    placed = add_rack_capacity(model, racks, catalogue, counts)
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
