"""Constraint family: at most `site.max_servers` servers, in the peak and the queue model alike."""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.family import Fleet
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData


class ServerLimit:
    """The site's server positions: Σ servers ≤ max_servers (switched, so a conflict can name it)."""

    name = "server-limit"

    def add(
        self, model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None
    ) -> None:
        """Every server the fleet counts, at most the limit."""
        limit = data.workload.site.max_servers
        if limit is None or not fleet:
            return
        added = model.add(sum(count for _, count in fleet) <= limit)
        if enforce is not None:
            added.only_enforce_if(enforce)

    def admits(self, data: ProblemData, builds: Sequence[Build]) -> bool:
        """No more servers than the limit."""
        limit = data.workload.site.max_servers
        return limit is None or len(builds) <= limit

    def relax(self, data: ProblemData) -> list[tuple[str, Workload]]:
        """The bid with no server limit."""
        site = data.workload.site
        if site.max_servers is None:
            return []
        return [
            (
                "no server limit",
                data.workload.model_copy(update={"site": site.model_copy(update={"max_servers": None})}),
            )
        ]

    def findings(self, data: ProblemData, plan: Plan) -> list[Finding]:
        """The limit, when the plan fills it."""
        limit = data.workload.site.max_servers
        if limit is not None and len(plan.servers) == limit:
            return [finding(FindingKind.SERVER_LIMIT, "site", max_servers=limit)]
        return []
