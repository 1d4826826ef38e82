"""Solving helpers shared by the property tests: one settings object, infeasible as `None`.

Instances drawn by tests.strategies are small, so ten seconds on two workers always suffices;
`NoPlanInTimeError` is therefore not caught: at this size it is a finding, not an outcome.
"""

from __future__ import annotations

from hypothesis import event

from ftopt.errors import InfeasibleError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from tests.strategies import CATALOGUE

SETTINGS = SolveSettings(time_limit=10, workers=2)
DETERMINISTIC = SolveSettings(time_limit=10, workers=2, deterministic=True)


def outcome(
    workload: Workload, catalogue: Catalogue = CATALOGUE, settings: SolveSettings = SETTINGS
) -> Plan | None:
    """The plan, or None when the solver proves that none exists."""
    try:
        plan = solve(workload, catalogue, settings).plan_or_raise()
    except InfeasibleError:
        event("infeasible")
        return None
    event(f"plan: {plan.status.value}")
    return plan


def proven(plan: Plan | None) -> bool:
    """Whether a price may be compared: a plan proven optimal (recorded as an event otherwise)."""
    if plan is None:
        return False
    if plan.status != Status.OPTIMAL:
        event("not proven optimal: price not compared")
        return False
    return True


def price_cents(plan: Plan) -> int:
    """The plan's total price in integer cents."""
    return round(plan.total_price * 100)


def describe(plan: Plan | None) -> str:
    """A short text of a plan for failure messages."""
    if plan is None:
        return "infeasible"
    servers = ", ".join(
        f"{s.id}:{s.chassis}/{s.gpu_count}x{s.gpu}/{s.ram_gb}GB/{s.nvme_tb}TB" for s in plan.servers
    )
    return f"{plan.status.value} {plan.total_price:,.2f} [{servers}]"
