"""Racks and circuits as counts: how many servers of each kind stand on each circuit of each rack.

Why counts again: the model names no server, so the room is a bin-packing over *kinds* of server
(full-load watts and rack units are all a rack asks of one): per kind, rack and circuit, an integer
says how many servers of that kind draw from that circuit. Every server counted by the model stands
somewhere; the servers on one circuit stay within its usable watts (the feed's derated figure); in a
redundant (A+B) rack the whole rack's draw stays within every circuit's; the chassis fit the rack's
units; and every other per-rack limit a family registers (a `RackLimit`: the liquid loop's kW,
`ftopt.solver.cpsat.liquid`) holds per rack. The same family, with constant counts, places the
decoded servers and checks a plan in hand (`place_builds`: first fit decreasing, else an exact
placement).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import MAX_RACK_UNITS, Rack
from ftopt.solver.cpsat.family import Family, Fleet, RackLimit, Relaxation, site
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

#: Seconds for an exact placement solve: a few kinds over a few dozen circuits take milliseconds.
PLACEMENT_S = 10.0

Place = tuple[int, int]  # (rack index, circuit index)


@dataclass(frozen=True)
class ServerKind:
    """What a rack asks of a server: its full-load draw, its height and its needs of each rack limit."""

    power_w: int
    units: int
    needs: tuple[int, ...] = ()  # per RackLimit, in the order the racks family was given them


@dataclass(frozen=True)
class Circuit:
    """One circuit of one rack, with what it may carry."""

    rack: int
    index: int
    usable_w: int


Placements = dict[tuple[ServerKind, Circuit], cp_model.IntVar]


@dataclass(frozen=True)
class RackSite:
    """The site's racks, every circuit of them (`circuits_of`) and the per-rack limits the families
    hand the racks family (the liquid loop): what every placement rule reads together."""

    racks: Sequence[Rack]
    circuits: list[Circuit]
    limits: Sequence[RackLimit] = ()

    @classmethod
    def of(cls, racks: Sequence[Rack], catalogue: Catalogue, limits: Sequence[RackLimit] = ()) -> RackSite:
        """The racks with their circuits' usable watts from the catalogue's feeds."""
        return cls(tuple(racks), circuits_of(racks, catalogue), tuple(limits))

    def circuits_in(self, r: int) -> list[Circuit]:
        """The circuits of rack `r`."""
        return [c for c in self.circuits if c.rack == r]


@dataclass(frozen=True)
class _Switched:
    """The model the rules go into and the literal that switches them (None: always on; a conflict
    core names a switched rule)."""

    model: cp_model.CpModel
    enforce: cp_model.IntVar | None = None

    def add(self, constraint: cp_model.BoundedLinearExpression | bool) -> None:
        """Add a linear constraint, switched; a constant one (an empty sum) is kept or refused."""
        if isinstance(constraint, bool):  # an empty sum compared with 0
            if not constraint:
                self.model.add_bool_or([self.enforce.negated()] if self.enforce is not None else [])
            return
        added = self.model.add(constraint)
        if self.enforce is not None:
            added.only_enforce_if(self.enforce)


def kind_of(build: Build, limits: Sequence[RackLimit] = ()) -> ServerKind:
    """A build's draw, height (a chassis without rack_units never reaches a racked site's model) and
    needs of each rack limit."""
    return ServerKind(build.power_w, build.chassis.rack_units or 0, tuple(lim.need(build) for lim in limits))


def circuits_of(racks: Sequence[Rack], catalogue: Catalogue) -> list[Circuit]:
    """Every circuit of every rack, in the site's order."""
    return [
        Circuit(r, i, catalogue.feed(feed).usable_w)
        for r, rack in enumerate(racks)
        for i, feed in enumerate(rack.feeds)
    ]


def _capacities(rack: Rack, limits: Sequence[RackLimit]) -> list[int | None]:
    return [lim.capacity(rack) for lim in limits]


def _takes(kind: ServerKind, rack: Rack, limits: Sequence[RackLimit]) -> bool:
    """Whether the rack has the height and every rack limit's room for one server of this kind."""
    if kind.units > rack.units:
        return False
    caps = _capacities(rack, limits)
    return all(
        need == 0 or (cap is not None and need <= cap) for need, cap in zip(kind.needs, caps, strict=True)
    )


def _fits(kind: ServerKind, circuit: Circuit, site: RackSite) -> bool:
    """Whether one server of this kind may stand on this circuit: its draw within the circuit (in a
    redundant rack, within every circuit of the rack), its height and its rack-limit needs within the rack."""
    rack = site.racks[circuit.rack]
    if not _takes(kind, rack, site.limits):
        return False
    if rack.redundant:
        return all(kind.power_w <= c.usable_w for c in site.circuits_in(circuit.rack))
    return kind.power_w <= circuit.usable_w


def add_rack_capacity(
    model: cp_model.CpModel,
    site: RackSite,
    counts: Mapping[ServerKind, Sequence[cp_model.LinearExprT]],
    enforce: cp_model.IntVar | None = None,
) -> Placements:
    """Place `counts` servers of each kind on the racks' circuits; the placements, per kind and circuit.

    `enforce` switches the rules (for an infeasibility core); when it is off, servers need no place.
    """
    rules = _Switched(model, enforce)
    placed: Placements = {}
    for kind, terms in counts.items():
        here = []
        for circuit in site.circuits:
            rack = site.racks[circuit.rack]
            if not _fits(kind, circuit, site):
                continue
            most = min(rack.units // max(1, kind.units), circuit.usable_w // max(1, kind.power_w))
            x = model.new_int_var(
                0, most, f"racked[{kind.power_w}W/{kind.units}U,{circuit.rack},{circuit.index}]"
            )
            placed[kind, circuit] = x
            here.append(x)
        rules.add(sum(here) == sum(terms))
    for r in range(len(site.racks)):
        _add_rack(rules, site, r, [(kind, c, x) for (kind, c), x in placed.items() if c.rack == r])
    return placed


_Mine = list[tuple[ServerKind, Circuit, cp_model.IntVar]]  # one rack's placements: kind, circuit, count


def _add_rack(rules: _Switched, site: RackSite, r: int, mine: _Mine) -> None:
    """One rack's units, each of its circuits' watts and each rack limit's capacity."""
    rack = site.racks[r]
    rules.add(sum(kind.units * x for kind, _, x in mine) <= rack.units)
    _add_circuits(rules, rack, mine, site.circuits_in(r))
    _add_limits(rules, rack, mine, site.limits)


def _add_circuits(rules: _Switched, rack: Rack, mine: _Mine, circuits: list[Circuit]) -> None:
    """Each of the rack's circuits carries its servers' watts; on a redundant rack each circuit
    carries the whole rack alone (the other side may fail)."""
    for circuit in circuits:
        on = mine if rack.redundant else [m for m in mine if m[1] == circuit]
        rules.add(sum(kind.power_w * x for kind, _, x in on) <= circuit.usable_w)


def _add_limits(rules: _Switched, rack: Rack, mine: _Mine, limits: Sequence[RackLimit]) -> None:
    """Each rack limit's capacity (a family's, such as the liquid loop) holds what its servers need."""
    for i, cap in enumerate(_capacities(rack, limits)):
        needing = [(kind.needs[i], x) for kind, _, x in mine if kind.needs[i]]
        if cap is not None and needing:
            rules.add(sum(n * x for n, x in needing) <= cap)


@dataclass
class _Room:
    """What first fit has put where: units and rack-limit use per rack, watts per circuit and rack."""

    units: list[int]
    used: list[list[int]]
    loads: dict[tuple[int, int], int]
    racked_w: list[int]


def _room_for(kind: ServerKind, c: Circuit, site: RackSite, room: _Room) -> bool:
    """Whether circuit `c` and its rack have room left for one more server of this kind."""
    rack = site.racks[c.rack]
    if room.units[c.rack] + kind.units > rack.units or not _takes(kind, rack, site.limits):
        return False
    for i, cap in enumerate(_capacities(rack, site.limits)):
        if kind.needs[i] and room.used[c.rack][i] + kind.needs[i] > (cap or 0):
            return False
    if rack.redundant:
        weakest = min(x.usable_w for x in site.circuits_in(c.rack))
        return room.racked_w[c.rack] + kind.power_w <= weakest
    return room.loads[c.rack, c.index] + kind.power_w <= c.usable_w


def first_fit(site: RackSite, kinds: list[ServerKind]) -> list[Place] | None:
    """Each server, hungriest first, on the first circuit with room for its watts, units and needs."""
    racks = site.racks
    room = _Room(
        [0] * len(racks),
        [[0] * len(site.limits) for _ in racks],
        {(c.rack, c.index): 0 for c in site.circuits},
        [0] * len(racks),
    )
    places: list[Place | None] = [None] * len(kinds)
    for i in sorted(range(len(kinds)), key=lambda i: (-kinds[i].power_w, -kinds[i].units)):
        kind = kinds[i]
        c = next((c for c in site.circuits if _room_for(kind, c, site, room)), None)
        if c is None:
            return None
        room.units[c.rack] += kind.units
        room.used[c.rack] = [u + n for u, n in zip(room.used[c.rack], kind.needs, strict=True)]
        room.loads[c.rack, c.index] += kind.power_w
        room.racked_w[c.rack] += kind.power_w
        places[i] = (c.rack, c.index)
    return [p for p in places if p is not None]


def exact_placement(site: RackSite, kinds: list[ServerKind]) -> list[Place] | None:
    """The placement CP-SAT finds for these servers' counts, servers taking its slots in order."""
    model = cp_model.CpModel()
    counts = {kind: [n] for kind, n in Counter(kinds).items()}
    placed = add_rack_capacity(model, site, counts)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = PLACEMENT_S
    if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    slots: dict[ServerKind, list[Place]] = defaultdict(list)
    for (kind, circuit), x in sorted(placed.items(), key=lambda item: (item[0][1].rack, item[0][1].index)):
        slots[kind] += [(circuit.rack, circuit.index)] * solver.value(x)
    return [slots[kind].pop(0) for kind in kinds]


class Racks:
    """The family's hooks: every server the fleet counts stands on a circuit of the site's racks (with
    racks), within each rack limit the registered families hand it (the liquid loop)."""

    def __init__(self, limits: Sequence[RackLimit] = ()) -> None:
        self.limits = tuple(limits)

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        """Placements per kind and circuit; the rules share the server limit's literal (the room's racks
        are a limit of the site, like max_servers), so a conflict core can name them."""
        racks = data.workload.site.racks
        if racks is None:
            return
        counts: dict[ServerKind, list[cp_model.LinearExprT]] = defaultdict(list)
        for build, count in fleet:
            counts[kind_of(build, self.limits)].append(count)
        add_rack_capacity(model, RackSite.of(racks, data.catalogue, self.limits), counts, enforce)

    def place(self, data: ProblemData, builds: Sequence[Build]) -> list[Place] | None:
        """(rack, circuit) for each server in order, or None when they do not fit the site's racks.

        First fit decreasing first (it fills racks in order and answers large sites in milliseconds);
        only when it fails does a small CP-SAT model of the same family decide."""
        racks = data.workload.site.racks
        if racks is None:
            return None
        kinds = [kind_of(build, self.limits) for build in builds]
        site = RackSite.of(racks, data.catalogue, self.limits)
        return first_fit(site, kinds) or exact_placement(site, kinds)

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        """Without racks, anything; with racks, when the servers have a place."""
        return data.workload.site.racks is None or self.place(data, builds) is not None


#: Taller racks, in the rack-units what-if: each rack this many times its units (at most the
#: tallest rack a workload may state, so the eased bid stays a valid workload the workbench can save).
TALLER = 2


def relax(data: ProblemData) -> list[Relaxation]:
    """Taller racks (each `TALLER` × its units), and every circuit at the catalogue's largest feed:
    the two ways the room as built may bound a plan, told apart so that a conflict names the one
    that frees it."""
    racks = data.workload.site.racks
    if racks is None:
        return []
    taller = tuple(
        rack.model_copy(update={"units": min(MAX_RACK_UNITS, rack.units * TALLER)}) for rack in racks
    )
    eased = []
    if taller != tuple(racks):
        words = f"racks of {TALLER} × their units"
        eased.append(Relaxation(RelaxationId.RACK_UNITS, words, site(data, racks=taller)))
    largest = max(data.catalogue.feeds, key=lambda f: f.usable_w)
    if any(f != largest.id for rack in racks for f in rack.feeds):
        wider = tuple(rack.model_copy(update={"feeds": (largest.id,) * len(rack.feeds)}) for rack in racks)
        words = f"every rack circuit a {largest.id} feed"
        eased.append(Relaxation(RelaxationId.CIRCUIT, words, site(data, racks=wider)))
    return eased


def family(racks: Racks) -> Family:
    """The racks family, with the hooks of `racks` (which keep the registered families' rack limits)."""
    return Family(
        name="racks",
        relaxations=(RelaxationId.RACK_UNITS, RelaxationId.CIRCUIT),
        verifier_rules=("rack", "rack-units", "circuit-load", "rack-report"),
        workload_fields=(
            "site.racks[].name",
            "site.racks[].units",
            "site.racks[].feeds",
            "site.racks[].redundant",
        ),
        catalogue_fields=("chassis[].rack_units", "feeds[].volts", "feeds[].amps", "feeds[].derating"),
        add=racks.add,
        admits=racks.admits,
        relax=relax,
    )
