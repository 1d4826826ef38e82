"""Rule family: at most `site.max_servers` servers, in the peak and the queue model alike."""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Fleet, Relaxation, site
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData


def add(model: cp_model.CpModel, data: ProblemData, fleet: Fleet, enforce: cp_model.IntVar | None) -> None:
    """Every server the fleet counts, at most the limit (switched, so a conflict can name it)."""
    limit = data.workload.site.max_servers
    if limit is None or not fleet:
        return
    added = model.add(sum(count for _, count in fleet) <= limit)
    if enforce is not None:
        added.only_enforce_if(enforce)


def admits(data: ProblemData, builds: Sequence[Build]) -> bool:
    """No more servers than the limit."""
    limit = data.workload.site.max_servers
    return limit is None or len(builds) <= limit


def relax(data: ProblemData) -> list[Relaxation]:
    """The bid with no server limit."""
    if data.workload.site.max_servers is None:
        return []
    return [Relaxation(RelaxationId.SERVER_LIMIT, "no server limit", site(data, max_servers=None))]


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """The limit, when the plan fills it."""
    limit = data.workload.site.max_servers
    if limit is not None and len(plan.servers) == limit:
        return [finding(FindingKind.SERVER_LIMIT, "site", max_servers=limit)]
    return []


#: The site's server positions: Σ servers ≤ max_servers.
ServerLimit = Family(
    name="server-limit",
    relaxations=(RelaxationId.SERVER_LIMIT,),
    verifier_rules=("max-servers",),
    workload_fields=("site.max_servers",),
    add=add,
    admits=admits,
    relax=relax,
    explain=explain,
)
