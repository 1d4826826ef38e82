"""The constraint-family interface: one module per rule of the site, shared by the peak and queue models.

Why one interface: the peak model counts servers per build, per heavy configuration and per
multi-node option; the queue model counts servers per build over a horizon. A rule of the site
(the server limit, the parts in stock and the servers owned, the racks and their circuits, the
racks' liquid loops) asks only *how many servers of which build* are bought, so both models hand
every family the same `Fleet` (the build of each count) and the family adds its constraints once,
for both. Each family also owns what the rest of the solver asks of that rule: whether a plan in
hand (a greedy plan, or the queue model's realised servers) keeps it, the eased bids the what-if
re-solves, and the binding-rule findings read off a plan. The registry is
`ftopt.solver.cpsat.families.FAMILIES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

#: Every server count of a model with the build it buys: (build, count) pairs, a build may repeat.
Fleet = Sequence[tuple[Build, cp_model.LinearExprT]]


class Family(Protocol):
    """One rule of the site: its constraints (peak and queue alike), its plan check, its relaxation
    and its findings."""

    name: str

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        """The family's constraints on the fleet; `enforce` switches those a conflict may name."""

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        """Whether concrete servers (one build each, in the plan's order) keep the rule."""

    def relax(self, data: ProblemData) -> list[tuple[str, Workload]]:
        """The bid with this rule eased, with the words for what was eased (none: nothing to ease)."""

    def findings(self, data: ProblemData, plan: Plan) -> list[Finding]:
        """The binding-rule lines this rule adds to a plan."""
