"""A server's power at the wall, from its parts, and whether its supplies carry it.

Why parts and not one overhead share: the old estimate, (cards + CPUs) × 1.15, folded memory,
drives, NICs, fans and the supplies' losses into one factor that no published system figure was
checked against; it came to 7 kW for a DGX H100 documented at 10.2 kW. Here the supplies deliver the
sum of the parts at full load (cards at their setting, CPU TDP, each DIMM and drive, fabric NICs, and
the chassis' fans, baseboard and BMC in `base_watts`), and the wall sees that sum over the supplies'
efficiency. The supplies that must carry the server when the redundant ones fail (all, all but one,
or half, `Chassis.psu_carrying`) must deliver that sum: a server they cannot carry is not a plan.
Checked against NVIDIA's DGX A100, H100 and B200 maxima in tests/model/test_power.py.

Where a chassis class carries a vendor's published system maximum (`Chassis.published_max`), that
figure, scaled to the build's cards (`vendor_load_w`), is a floor under the parts' sum: the parts
explain a DGX H200 at 0.91 and a DGX B200 at 0.86 of NVIDIA's figures, and a circuit sized to them
could be overloaded by the real server. Feed, rack circuits and supplies use `planned_load_w`.
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


def vendor_load_w(chassis: Chassis, gpu_w: int, gpu_count: int) -> float | None:
    """The vendor's published system maximum as a load on the supplies, scaled to a build's cards;
    None where the chassis class has none.

    The scaling: the figure holds for the vendor's own system at full card power. Its cards' share
    (gpu_w × gpu_count of `published_max`) is the only part whose change ftopt knows, so a build whose
    cards draw less (a power cap) takes the difference off; the rest of the figure (host, fans, NICs
    and whatever headroom the vendor keeps) stays whole, even for a smaller host: the safe side. At the
    wall it is the published figure less the cards' difference over the supplies' efficiency."""
    top = chassis.published_max
    if top is None:
        return None
    cards = top.gpu_w * top.gpu_count - gpu_w * gpu_count
    return top.watts * chassis.psu_efficiency - cards


def planned_load_w(chassis: Chassis, gpu_w: int, gpu_count: int, load: float) -> float:
    """What the power rules plan the supplies to deliver: the parts' `load`, or the vendor's scaled
    maximum where it is larger (`vendor_load_w`)."""
    vendor = vendor_load_w(chassis, gpu_w, gpu_count)
    return load if vendor is None else max(load, vendor)


def wall_w(chassis: Chassis, load: float) -> int:
    """Watts at the wall: the supplies' load over their efficiency, rounded up to the watt."""
    return math.ceil(round(load / chassis.psu_efficiency, 6))


def supplies_carry(chassis: Chassis, load: float) -> bool:
    """Whether the supplies left when the redundant ones fail still deliver the load."""
    return load <= chassis.psu_capacity_w


def supplies_words(chassis: Chassis) -> str:
    """The supplies as a buyer reads them: "4 × 2,700 W, N+N"."""
    return f"{chassis.psu_count} × {chassis.psu_watts:,} W, {chassis.psu_redundancy}"
