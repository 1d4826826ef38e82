"""The TCO: purchase plus each server's energy over the years; the bound restated on the price."""

from __future__ import annotations

import pytest

from ftopt.solver.decode.tco import plan_tco, price_bound
from tests.solver.decode.figures import timed_plan


def test_the_tco_adds_each_servers_energy_to_the_purchase() -> None:
    data, plan = timed_plan()
    energy = data.workload.energy
    tco = plan_tco(energy, "price", plan.servers, plan.total_price)
    assert tco == plan.tco
    assert tco.total == pytest.approx(tco.purchase + tco.energy_cost) and tco.energy_cost > 0
    doubled = plan_tco(energy, "price", plan.servers * 2, plan.total_price)
    assert doubled.energy_cost == pytest.approx(2 * tco.energy_cost, abs=0.02)


def test_a_tco_bound_keeps_its_distance_as_a_bound_on_the_price() -> None:
    data, plan = timed_plan()
    tco = plan_tco(data.workload.energy, "tco", plan.servers, plan.total_price)
    bound, gap = price_bound(tco, plan.total_price, tco.total - 100)
    assert bound == pytest.approx(plan.total_price - 100) and gap == pytest.approx(100 / tco.total)
    assert price_bound(plan.tco, 200.0, 150.0) == (150.0, 0.25)  # on the price: the gap to it
