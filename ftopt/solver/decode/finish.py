"""The last steps every returned plan takes, whichever search made it (ordinary or queue): its
training hours priced on public clouds, what stock and lead times did to it, and the verifier's check.
"""

from __future__ import annotations

from ftopt.catalogue.cloud import load_cloud_prices
from ftopt.errors import UnverifiedPlanError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.rent import rent_for
from ftopt.model.workload import Workload
from ftopt.solver.explain.supply import supply_findings


def with_rent(plan: Plan) -> Plan:
    """The plan with its training hours priced on public clouds (buy or rent), when it trains hours."""
    return plan.model_copy(update={"rent": rent_for(plan, load_cloud_prices())})


def with_supply(plan: Plan, workload: Workload, catalogue: Catalogue) -> Plan:
    """The plan with the stock it used up and the parts left out for their lead time among its binding
    rules (`catalogue` is the whole one)."""
    return plan.model_copy(update={"binding": [*plan.binding, *supply_findings(plan, workload, catalogue)]})


def verify(plan: Plan, workload: Workload, catalogue: Catalogue, what: str = "the solver's plan") -> None:
    """Re-check the plan with code that shares nothing with the solver; a failure is ftopt's bug."""
    from ftopt.verify import verify_plan  # the verifier is optional at import time for the solver

    violations = verify_plan(plan, workload, catalogue)
    if violations:
        lines = "; ".join(str(v) for v in violations)
        raise UnverifiedPlanError(f"internal error: {what} fails verification: {lines}")
