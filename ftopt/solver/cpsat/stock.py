"""Constraint family: parts in stock and servers owned, in the peak and the queue model alike.

A price entry's `stock` bounds the units of that part over all servers bought; an inventory entry's
`count` bounds the servers of its owned build (the pseudo part `owned:<entry>`, `Build.units`). One
rule, so the queue model keeps the customer's servers exactly as the peak model does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.family import Fleet
from ftopt.solver.problem.builds import Build, within_stock
from ftopt.solver.problem.data import ProblemData


class Stock:
    """Σ units of each limited part over the fleet ≤ its stock (or the servers owned)."""

    name = "stock"

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        """Always on: a stock is a fact of the price list, not a rule a conflict may drop."""
        terms: dict[str, list[cp_model.LinearExprT]] = {}
        for build, count in fleet:
            for item, units in build.units().items():
                if data.limit(item) is not None:
                    terms.setdefault(item, []).append(units * count)
        for item, parts in terms.items():
            model.add(sum(parts) <= (data.limit(item) or 0))

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        """No part beyond its stock, no inventory entry beyond its count."""
        return within_stock(data.limit, [b.units() for b in builds])

    def relax(self, data: ProblemData) -> list[tuple[str, Workload]]:
        """Stock is not eased: the supply findings say what more of a part would need."""
        return []

    def findings(self, data: ProblemData, plan: Plan) -> list[Finding]:
        """None here: the plan's supply findings (`ftopt.solver.explain.supply`) report used-up stock."""
        return []
