"""Time to train and energy for a copy placed on a real server, and a server's energy over its life.

`speed.py` estimates a copy's speed from its link kind and its host. What a placement gives it is
decided here from the server's own figures, so that the plan (solver side) and `ftopt verify`
(verifier side) price the same copy the same way:

- the host a copy can count on: the DRAM bandwidth of one socket of the server's CPU (all channels at
  the platform's DDR5 rate, at streaming efficiency, as `planning_host`) and its GPUs' share of the
  server's cores;
- a server's energy over the years it is written off: its estimated full-load draw (the cards at
  their power cap) × utilisation × years × 8,760 h × PUE, the `tco` objective's per-server term.
  Utilisation belongs here only: it is the share of a server's years spent training. A run's own
  energy (`ftopt.model.speed.energy_kwh`) multiplies hours that are training time already.
"""

from __future__ import annotations

from ftopt.model.speed import Host, socket_dram_gbps
from ftopt.model.stack import SpeedConstants
from ftopt.model.workload import Energy

HOURS_PER_YEAR = 8760


def copy_host(
    memory_channels: int, server_cores: int, server_gpus: int, gpus: int, constants: SpeedConstants
) -> Host:
    """What a copy of `gpus` cards gets from a server's host: one socket's DRAM bandwidth and its
    GPUs' share of the server's cores (rounded down)."""
    cores = server_cores * gpus // max(server_gpus, 1)
    return Host(memory_gbps=socket_dram_gbps(memory_channels, constants), cores=max(cores, 1))


def server_energy_kwh(power_w: float, energy: Energy) -> float:
    """kWh a server draws from the grid over `energy.years`: full-load draw × utilisation × PUE."""
    return power_w * energy.utilisation * energy.years * HOURS_PER_YEAR * energy.pue / 1000


def server_energy_cost(power_w: float, energy: Energy) -> float:
    """What that energy costs at `energy.price_per_kwh`."""
    return server_energy_kwh(power_w, energy) * energy.price_per_kwh
