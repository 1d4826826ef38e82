"""The registry of constraint families: the one list the peak model, the queue model, the greedy
plans' checks, the what-if and the binding rules all read (`ftopt.solver.cpsat.family.Family`).

A new rule of the site is one module with a `Family` and one line here; a per-rack capacity is a
`RackLimit` handed to the racks family as well (the liquid loop).
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.family import Family, Fleet
from ftopt.solver.cpsat.limit import ServerLimit
from ftopt.solver.cpsat.liquid import Liquid
from ftopt.solver.cpsat.racks import Racks
from ftopt.solver.cpsat.stock import Stock
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

LIQUID = Liquid()
#: The racks family, with every per-rack limit a family registers.
RACKS = Racks(limits=(LIQUID.loop,))
#: Every family, in the order their constraints, findings and relaxations are added.
FAMILIES: tuple[Family, ...] = (ServerLimit(), Stock(), RACKS, LIQUID)


def add_families(
    model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
) -> None:
    """Every family's constraints on the fleet (the peak model's counts or the queue model's)."""
    for family in FAMILIES:
        family.add(model, data, fleet, enforce)


def admits(data: ProblemData, builds: Sequence[Build]) -> bool:
    """Whether concrete servers (a greedy plan, a realised queue plan) keep every family's rule."""
    return all(family.admits(data, builds) for family in FAMILIES)


def relaxations(data: ProblemData) -> list[tuple[str, Workload]]:
    """Every family's eased bids."""
    return [eased for family in FAMILIES for eased in family.relax(data)]


def findings(data: ProblemData, plan: Plan) -> list[Finding]:
    """Every family's binding-rule lines for the plan."""
    return [line for family in FAMILIES for line in family.findings(data, plan)]
