"""The registry of rule families: the one list the peak model, the queue model, the greedy plans'
checks, the what-if, the binding rules and the reasons of a bid without a plan all read
(`ftopt.solver.cpsat.family.Family`).

A new hard rule is one module with a `Family` and one line in `FAMILIES`; each function below calls
only the hooks a family has. A family's per-rack capacity (`rack_limit`: the liquid loop) is handed
to the racks family, which keeps every one of them in its placements.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.plan import Plan
from ftopt.solver.cpsat import racks
from ftopt.solver.cpsat.deadline import Deadline
from ftopt.solver.cpsat.family import Family, Fleet, Relaxation
from ftopt.solver.cpsat.feed import Feed
from ftopt.solver.cpsat.host import Host
from ftopt.solver.cpsat.inlet import Inlet
from ftopt.solver.cpsat.limit import ServerLimit
from ftopt.solver.cpsat.liquid import Liquid
from ftopt.solver.cpsat.memory import Memory
from ftopt.solver.cpsat.optimiser import Optimiser
from ftopt.solver.cpsat.outlet import Outlet
from ftopt.solver.cpsat.stock import Stock
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

#: The families with a rule of their own, in the order their findings and relaxations are listed:
#: the what-if re-solves in this order until its budget ends, so the bid's own rules (deadline,
#: cards, feed, room, outlets, optimiser, limits) come before the catalogue's host rules.
_RULES: tuple[Family, ...] = (
    Deadline,
    Memory,
    Feed,
    Inlet,
    Outlet,
    Optimiser,
    ServerLimit,
    Stock,
    Liquid,
    Host,
)
#: The racks family's hooks, keeping every per-rack limit a family declares (decoding places by them).
RACKS = racks.Racks([f.rack_limit for f in _RULES if f.rack_limit is not None])
#: Every family: the racks family goes in after the rules whose limits it keeps.
FAMILIES: tuple[Family, ...] = (*_RULES, racks.family(RACKS))


def add_families(
    model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
) -> None:
    """Every family's constraints on the fleet (the peak model's counts or the queue model's)."""
    for family in FAMILIES:
        if family.add is not None:
            family.add(model, data, fleet, enforce)


def admits(data: ProblemData, builds: Sequence[Build]) -> bool:
    """Whether concrete servers (a greedy plan, a realised queue plan) keep every family's rule."""
    return all(family.admits(data, builds) for family in FAMILIES if family.admits is not None)


def relaxations(data: ProblemData) -> list[Relaxation]:
    """Every family's eased bids, each with its stable id."""
    return [eased for family in FAMILIES if family.relax is not None for eased in family.relax(data)]


def findings(data: ProblemData, plan: Plan) -> list[Finding]:
    """Every family's binding-rule lines for the plan."""
    return [line for family in FAMILIES if family.explain is not None for line in family.explain(data, plan)]


def impossible(data: ProblemData) -> list[Finding]:
    """Every family's reason that the bid has no plan, where a family can tell without a search."""
    return [line for family in FAMILIES if family.impossible is not None for line in family.impossible(data)]
