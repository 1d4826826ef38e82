"""A server's power at the wall, from its parts, and whether its supplies carry it.

Why parts and not one overhead share: the old estimate, (cards + CPUs) × 1.15, folded memory,
drives, NICs, fans and the supplies' losses into one factor that no published system figure was
checked against; it came to 7 kW for a DGX H100 documented at 10.2 kW. Here the supplies deliver the
sum of the parts at full load (cards at their setting, CPU TDP, each DIMM and drive, fabric NICs, and
the chassis' fans, baseboard and BMC in `base_watts`), and the wall sees that sum over the supplies'
efficiency. The supplies that must carry the server when the redundant ones fail (all, all but one,
or half, `Chassis.psu_carrying`) must deliver that sum: a server they cannot carry is not a plan.
Checked against NVIDIA's DGX A100, H100 and B200 maxima in tests/model/test_power.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ftopt.model.hardware import Chassis, Cpu, Dimm, Drive, Nic


@dataclass(frozen=True)
class Parts:
    """What draws power in one server, at full load."""

    chassis: Chassis
    gpu_w: int
    gpu_count: int
    cpu: Cpu
    dimm: Dimm
    dimm_count: int
    boot: Drive
    data_drive: Drive | None
    data_drive_count: int
    nic: Nic | None = None
    nic_count: int = 0


def load_w(p: Parts) -> float:
    """Watts the supplies deliver: cards, CPUs, memory, drives, NICs and the chassis' own draw."""
    drives = p.boot.watts + (p.data_drive.watts * p.data_drive_count if p.data_drive else 0.0)
    nics = p.nic.power_w * p.nic_count if p.nic else 0.0
    return (
        p.gpu_w * p.gpu_count
        + p.cpu.tdp_w * p.chassis.sockets
        + p.dimm.watts * p.dimm_count
        + drives
        + nics
        + p.chassis.base_watts
    )


def wall_w(chassis: Chassis, load: float) -> int:
    """Watts at the wall: the supplies' load over their efficiency, rounded up to the watt."""
    return math.ceil(round(load / chassis.psu_efficiency, 6))


def supplies_carry(chassis: Chassis, load: float) -> bool:
    """Whether the supplies left when the redundant ones fail still deliver the load."""
    return load <= chassis.psu_capacity_w


def supplies_words(chassis: Chassis) -> str:
    """The supplies as a buyer reads them: "4 × 2,700 W, N+N"."""
    return f"{chassis.psu_count} × {chassis.psu_watts:,} W, {chassis.psu_redundancy}"
