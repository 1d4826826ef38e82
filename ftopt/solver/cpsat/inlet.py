"""Rule family: the room's inlet air temperature, which rules a card out of a chassis.

Like the feed, the inlet filters builds where they are made (`ftopt.solver.problem.builds`): a
card–chassis pair whose inlet limit is below the room's is left out with an `inlet` finding. The
family has no constraints; it owns the binding lines (those findings) and the what-if (a cooler
room: the warmest limit the room now exceeds).
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Relaxation, site
from ftopt.solver.problem.data import ProblemData


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """The pairs the room's inlet ruled out."""
    return [reason for reason in data.excluded if reason.kind == FindingKind.INLET]


def relax(data: ProblemData) -> list[Relaxation]:
    """The warmest inlet limit of a chassis–card pair that the room's inlet now exceeds."""
    catalogue, inlet = data.catalogue, data.workload.site.inlet_c
    pairs = [c.inlet_limit_c(g) for g in catalogue.gpus for c in catalogue.chassis if c.takes(g)]
    warm = [limit for limit in pairs if inlet > limit]
    if not warm:
        return []
    cooler = min(warm)
    return [Relaxation(RelaxationId.INLET, f"an inlet of {cooler:g} °C", site(data, inlet_c=cooler))]


Inlet = Family(
    name="inlet",
    relaxations=(RelaxationId.INLET,),
    verifier_rules=("inlet",),
    workload_fields=("site.inlet_c",),
    catalogue_fields=("chassis[].max_inlet_c", "chassis[].inlet_limits", "gpus[].max_inlet_c"),
    relax=relax,
    explain=explain,
)
