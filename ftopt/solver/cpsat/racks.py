"""Racks and circuits as counts: how many servers of each kind stand on each circuit of each rack.

Why counts again: the model names no server, so the room is a bin-packing over *kinds* of server
(full-load watts and rack units are all a rack asks of one): per kind, rack and circuit, an integer
says how many servers of that kind draw from that circuit. Every server counted by the model stands
somewhere; the servers on one circuit stay within its usable watts (the feed's derated figure); in a
redundant (A+B) rack the whole rack's draw stays within every circuit's; the chassis fit the rack's
units. The same family, with constant counts, places the decoded servers (decode/racks.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Rack
from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData


@dataclass(frozen=True)
class ServerKind:
    """What a rack asks of a server: its full-load draw and its height."""

    power_w: int
    units: int


@dataclass(frozen=True)
class Circuit:
    """One circuit of one rack, with what it may carry."""

    rack: int
    index: int
    usable_w: int


Placements = dict[tuple[ServerKind, Circuit], cp_model.IntVar]


def kind_of(build: Build) -> ServerKind:
    """A build's draw and height (a chassis without rack_units never reaches a racked site's model)."""
    return ServerKind(build.power_w, build.chassis.rack_units or 0)


def circuits_of(racks: Sequence[Rack], catalogue: Catalogue) -> list[Circuit]:
    """Every circuit of every rack, in the site's order."""
    return [
        Circuit(r, i, catalogue.feed(feed).usable_w)
        for r, rack in enumerate(racks)
        for i, feed in enumerate(rack.feeds)
    ]


def _fits(kind: ServerKind, circuit: Circuit, rack: Rack, circuits: list[Circuit]) -> bool:
    """Whether one server of this kind may stand on this circuit: its draw within the circuit (in a
    redundant rack, within every circuit of the rack) and its height within the rack."""
    if kind.units > rack.units:
        return False
    if rack.redundant:
        return all(kind.power_w <= c.usable_w for c in circuits if c.rack == circuit.rack)
    return kind.power_w <= circuit.usable_w


def add_rack_capacity(
    model: cp_model.CpModel,
    racks: Sequence[Rack],
    catalogue: Catalogue,
    counts: Mapping[ServerKind, Sequence[cp_model.LinearExprT]],
    enforce: cp_model.IntVar | None = None,
) -> Placements:
    """Place `counts` servers of each kind on the racks' circuits; the placements, per kind and circuit.

    `enforce` switches the rules (for an infeasibility core); when it is off, servers need no place.
    """
    circuits = circuits_of(racks, catalogue)
    placed: Placements = {}
    for kind, terms in counts.items():
        here = []
        for circuit in circuits:
            rack = racks[circuit.rack]
            if not _fits(kind, circuit, rack, circuits):
                continue
            most = min(rack.units // kind.units, circuit.usable_w // max(1, kind.power_w))
            x = model.new_int_var(
                0, most, f"racked[{kind.power_w}W/{kind.units}U,{circuit.rack},{circuit.index}]"
            )
            placed[kind, circuit] = x
            here.append(x)
        _add(model, sum(here) == sum(terms), enforce)
    for r, rack in enumerate(racks):
        mine = [(kind, c, x) for (kind, c), x in placed.items() if c.rack == r]
        _add(model, sum(kind.units * x for kind, _, x in mine) <= rack.units, enforce)
        for circuit in (c for c in circuits if c.rack == r):
            on = mine if rack.redundant else [m for m in mine if m[1] == circuit]
            _add(model, sum(kind.power_w * x for kind, _, x in on) <= circuit.usable_w, enforce)
    return placed


def _add(
    model: cp_model.CpModel,
    constraint: cp_model.BoundedLinearExpression | bool,
    enforce: cp_model.IntVar | None,
) -> None:
    """Add a linear constraint, switched by `enforce`; a constant one (an empty sum) is kept or refused."""
    if isinstance(constraint, bool):  # an empty sum compared with 0
        if not constraint:
            model.add_bool_or([enforce.negated()] if enforce is not None else [])
        return
    added = model.add(constraint)
    if enforce is not None:
        added.only_enforce_if(enforce)


def add_racks(model: cp_model.CpModel, data: ProblemData, v: Variables, enforce: cp_model.IntVar) -> None:
    """Every server the model counts stands on a circuit of the site's racks (when it has racks)."""
    racks = data.workload.site.racks
    if racks is None:
        return
    counts: dict[ServerKind, list[cp_model.LinearExprT]] = defaultdict(list)
    for f, x in v.plain_servers.items():
        counts[kind_of(data.builds[f])].append(x)
    for c, x in v.config_servers.items():
        counts[kind_of(data.builds[data.configs[c].build])].append(x)
    for option in data.multinode:
        counts[kind_of(option.build)].append(v.multinode_servers[option.mode])
    add_rack_capacity(model, racks, data.catalogue, counts, enforce)
