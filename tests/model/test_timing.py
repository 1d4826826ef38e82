"""A copy's share of its host, and a server's energy over the years it is written off."""

from __future__ import annotations

from ftopt.catalogue import load_catalogue
from ftopt.model.timing import HOURS_PER_YEAR, copy_host, server_energy_cost, server_energy_kwh
from ftopt.model.workload import Energy


def test_a_copy_gets_its_gpus_share_of_the_cores_and_one_sockets_bandwidth() -> None:
    constants = load_catalogue().speed
    assert constants is not None
    host = copy_host(12, 64, 8, 2, constants)
    assert host.cores == 16
    assert copy_host(12, 64, 8, 8, constants).memory_gbps == host.memory_gbps
    assert copy_host(12, 4, 8, 1, constants).cores == 1  # never less than one core


def test_energy_is_draw_times_utilisation_years_hours_and_pue() -> None:
    energy = Energy(price_per_kwh=0.1, pue=1.5, utilisation=0.5, years=2)
    kwh = server_energy_kwh(1000, energy)
    assert kwh == 1000 * 0.5 * 2 * HOURS_PER_YEAR * 1.5 / 1000
    assert server_energy_cost(1000, energy) == kwh * 0.1
