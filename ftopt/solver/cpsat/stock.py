"""Rule family: parts in stock and servers owned, in the peak and the queue model alike.

A price entry's `stock` bounds the units of that part over all servers bought; an inventory entry's
`count` bounds the servers of its owned build (the pseudo part `owned:<entry>`, `Build.units`). One
rule, so the queue model keeps the customer's servers exactly as the peak model does. Its findings
(stock used up, parts left out for their lead time) are the plan's supply findings
(`ftopt.solver.explain.supply`), which read the whole catalogue, not the arriving one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Fleet, Relaxation
from ftopt.solver.problem.builds import Build, within_stock
from ftopt.solver.problem.data import ProblemData


def add(model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None) -> None:
    """Σ units of each limited part over the fleet ≤ its stock (or the servers owned). Always on: a
    stock is a fact of the price list, not a rule a conflict may drop."""
    terms: dict[str, list[cp_model.LinearExprT]] = {}
    for build, count in fleet:
        for item, units in build.units().items():
            if data.limit(item) is not None:
                terms.setdefault(item, []).append(units * count)
    for item, parts in terms.items():
        model.add(sum(parts) <= (data.limit(item) or 0))


def admits(data: ProblemData, builds: Sequence[Build]) -> bool:
    """No part beyond its stock, no inventory entry beyond its count."""
    return within_stock(data.limit, [b.units() for b in builds])


def relax(data: ProblemData) -> list[Relaxation]:
    """The price list with no part limited by its stock (owned servers stay what they are: a count of
    servers the customer has is a fact, not an eased figure)."""
    catalogue = data.catalogue
    if not any(p.stock is not None for p in catalogue.prices):
        return []
    prices = tuple(p.model_copy(update={"stock": None}) for p in catalogue.prices)
    eased = catalogue.model_copy(update={"prices": prices})
    return [Relaxation(RelaxationId.STOCK, "no part limited by its stock", data.workload, eased)]


Stock = Family(
    name="stock",
    relaxations=(RelaxationId.STOCK,),
    verifier_rules=("stock", "owned"),
    workload_fields=("inventory[].count",),
    catalogue_fields=("prices[].stock",),
    add=add,
    admits=admits,
    relax=relax,
)
