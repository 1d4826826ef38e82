"""The plan's total cost of ownership, and the solver's bound restated as a bound on the price.

Why a module of its own: the TCO is the purchase plus each server's energy over the years at the
workload's energy settings (`Energy`), nothing of the placement; and with `objective: tco` the
solver's bound is on the TCO, so the price's bound and gap are read from it here.
"""

from __future__ import annotations

from ftopt.model.plan import Server, Tco
from ftopt.model.timing import server_energy_cost, server_energy_kwh
from ftopt.model.workload import Energy


def plan_tco(energy: Energy, objective: str, servers: list[Server], purchase: float) -> Tco:
    """Purchase plus each server's energy over the years at the workload's energy settings."""
    kwh = sum(server_energy_kwh(s.power_w, energy) for s in servers)
    cost = round(sum(round(server_energy_cost(s.power_w, energy), 2) for s in servers), 2)
    return Tco(
        objective=objective,
        purchase=purchase,
        energy_kwh=round(kwh, 1),
        energy_cost=cost,
        total=round(purchase + cost, 2),
        price_per_kwh=energy.price_per_kwh,
        pue=energy.pue,
        utilisation=energy.utilisation,
        years=energy.years,
    )


def price_bound(tco: Tco, total: float, bound: float) -> tuple[float, float]:
    """The solver's bound as a bound on the price, and the plan's gap to it."""
    if tco.objective == "tco":
        # The solver's bound is on the TCO; as a bound on the price it keeps the same distance.
        gap = (tco.total - bound) / tco.total if tco.total else 0.0
        return total - max(tco.total - bound, 0.0), gap
    return bound, (total - bound) / total if total else 0.0
