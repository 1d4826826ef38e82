"""Server builds and copy modes as a spreadsheet user derives them: from the catalogue, not the solver.

The baselines must not share code with the product's solver (`ftopt.solver`), or a rule the solver
gets wrong would be wrong in the yardstick too. They use only the model layer: the catalogue's
items, its rules and prices, and `ftopt.model.rl.copy_sizings` for each copy's memory (by role for RL
runs). The rules are the catalogue's, applied the simple way:

- a server fills every card slot of its chassis with one card model, optionally with NVLink
  bridges of one size joining every card;
- CPUs: the cheapest model (then the coolest) whose pair has ≥ `cores_per_gpu` × cards cores, which
  the chassis cools and whose channels the DIMM slots fill alike;
- power: the highest card setting at which the feed powers the server with that CPU (the parts,
  or the vendor's published maximum where larger);
- RAM: every DIMM slot holds the same module, at least `host_ram_per_gpu_memory` × GPU memory,
  plus what the copies on it offload and the reserve: the cheapest module that gives that;
- data NVMe: the cheapest drive model and count that give `data_tb_per_socket` per socket and the
  copies' checkpoints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ftopt.model.hardware import Bridge, Catalogue, Chassis, Cpu, Dimm, Drive, Gpu
from ftopt.model.power import Parts as PowerParts
from ftopt.model.power import load_w, planned_load_w, supplies_carry, wall_w
from ftopt.model.rl import copy_sizings
from ftopt.model.sizing import Sizing, profile_run
from ftopt.model.topology import Topology, topology_of
from ftopt.model.workload import Offload, Optimizer, Strategy, Workload


@dataclass(frozen=True)
class Layout:
    """A server before RAM and disk: chassis, cards, bridges, CPUs, power cap."""

    chassis: Chassis
    gpu: Gpu
    bridge: Bridge | None
    cpu: Cpu
    power_cap_w: int
    power_w: int
    boot: Drive
    fixed_price: float  # chassis, cards, bridges, CPUs, boot drive
    rams: tuple[Part, ...]  # RAM it may be bought with, cheapest first
    disks: tuple[Part, ...]  # data drives it may be bought with, cheapest first

    @property
    def gpu_count(self) -> int:
        """Every slot holds a card."""
        return self.chassis.gpu_slots

    @property
    def bridge_size(self) -> int:
        """Cards one bridge joins; 0 when unbridged."""
        return self.bridge.size if self.bridge else 0

    @property
    def domain_size(self) -> int:
        """Cards one NVLink domain holds: every card on an NVSwitch board, else one bridge's."""
        return self.gpu_count if self.chassis.nvswitch else self.bridge_size

    @property
    def topology(self) -> Topology:
        """The server's interconnect, as the model layer describes it from the catalogue."""
        return topology_of(self.chassis, self.gpu, self.bridge_size)

    @property
    def name(self) -> str:
        """Readable and unique."""
        bridges = f"{self.bridge_size}-way" if self.bridge else "no bridge"
        return f"{self.chassis.id}/{self.gpu_count}x{self.gpu.id}/{bridges}/{self.cpu.id}/{self.power_cap_w}W"


@dataclass(frozen=True)
class Mode:
    """One way to train one copy of run `run` (its index in the workload)."""

    run: int
    sizing: Sizing
    domain: int  # NVLink domain the shards need (0: none)

    @property
    def gpus(self) -> int:
        """GPUs per copy."""
        return self.sizing.gpus

    @property
    def memory_need(self) -> float:
        """GB of GPU memory the copy takes: GPUs × memory per GPU."""
        return self.sizing.gpus * self.sizing.total_gb

    @property
    def ram_gb(self) -> int:
        """Host RAM it offloads to, rounded up: never looser than the verifier."""
        return math.ceil(self.sizing.host_ram_gb)

    @property
    def nvme_gb(self) -> int:
        """NVMe its checkpoints and base model take, rounded up."""
        return math.ceil(self.sizing.nvme_gb)

    @property
    def order(self) -> tuple[float, int, int]:
        """Spreadsheet order: least GPU memory, then fewest GPUs, then plain settings first."""
        s = self.sizing
        plain = (
            (s.offload == Offload.CPU) + (s.optimizer == Optimizer.ADAMW_8BIT) + (s.strategy == Strategy.FSDP)
        )
        return (self.memory_need, self.gpus, plain)


def unit_price(catalogue: Catalogue, item_id: str) -> float:
    """One unit's price from the price list."""
    return catalogue.price(item_id).amount


def server_power_w(chassis: Chassis, gpu_w: int, cpu: Cpu, boot: Drive, ram: Part, disk: Part) -> int | None:
    """Draw at the wall with the cheapest RAM and disk, or the vendor's published maximum where that
    is larger, as the catalogue's power rule says (ftopt.model.power); None when the chassis'
    supplies cannot carry it. Without the vendor's figure the baseline put 10.2 kW DGX-class
    servers on an 8.9 kW feed and its plan failed verification."""
    if not isinstance(ram.item, Dimm) or not isinstance(disk.item, Drive):
        return None
    parts = PowerParts(
        chassis, gpu_w, chassis.gpu_slots, cpu, ram.item, ram.count, boot, disk.item, disk.count
    )
    load = planned_load_w(chassis, gpu_w, chassis.gpu_slots, load_w(parts))
    return wall_w(chassis, load) if supplies_carry(chassis, load) else None


def cheapest_cpu(catalogue: Catalogue, chassis: Chassis) -> Cpu | None:
    """The cheapest CPU whose pair has the cores the cards need, that the chassis cools, whose
    channels the DIMM slots fill alike."""
    need = catalogue.rules.cores_per_gpu * chassis.gpu_slots
    fitting = [
        c
        for c in catalogue.cpus
        if c.cores * chassis.sockets >= need
        and c.tdp_w <= chassis.max_cpu_tdp_w
        and chassis.dimm_slots % (c.memory_channels * chassis.sockets) == 0
    ]
    return min(fitting, key=lambda c: (unit_price(catalogue, c.id), c.tdp_w, c.id), default=None)


def layouts(catalogue: Catalogue, workload: Workload) -> list[Layout]:
    """Every chassis and allowed card the site's inlet and feed allow, unbridged and per bridge size."""
    feed = catalogue.feed(workload.site.feed)
    limits = workload.hardware
    boot = min(
        (d for d in catalogue.drives if d.role == "boot"), key=lambda d: (unit_price(catalogue, d.id), d.id)
    )
    found = []
    for gpu in catalogue.gpus:
        for chassis in catalogue.chassis:
            allowed = (limits.gpus is None or gpu.id in limits.gpus) and (
                limits.chassis is None or chassis.id in limits.chassis
            )
            cpu = cheapest_cpu(catalogue, chassis)
            if (
                not allowed
                or not chassis.takes(gpu)
                or cpu is None
                or workload.site.inlet_c > chassis.inlet_limit_c(gpu)
            ):
                continue
            rams, disks = ram_options(catalogue, chassis, gpu), disk_options(catalogue, chassis)
            if not rams or not disks:
                continue
            powered = (
                (w, power)
                for w in gpu.power_settings_w
                if (power := server_power_w(chassis, w, cpu, boot, rams[0], disks[0])) is not None
                and power <= feed.usable_w
            )
            setting = next(powered, None)
            if setting is None:
                continue
            cap, power = setting
            for bridge in _bridges(catalogue, gpu, chassis.gpu_slots):
                fixed = (
                    unit_price(catalogue, chassis.id)
                    + unit_price(catalogue, gpu.id) * chassis.gpu_slots
                    + unit_price(catalogue, cpu.id) * chassis.sockets
                    + unit_price(catalogue, boot.id)
                    + (unit_price(catalogue, bridge.id) * chassis.gpu_slots // bridge.size if bridge else 0.0)
                )
                found.append(Layout(chassis, gpu, bridge, cpu, cap, power, boot, fixed, rams, disks))
    return found


def _bridges(catalogue: Catalogue, gpu: Gpu, count: int) -> list[Bridge | None]:
    """No bridges, or bridges of one size that join every card."""
    sizes = sorted(gpu.nvlink.bridge_sizes) if gpu.nvlink else []  # none for an SXM module
    bridges = [catalogue.bridge_for(gpu.id, size) for size in sizes if count % size == 0]
    return [None, *(b for b in bridges if b is not None)]


@dataclass(frozen=True)
class Part:
    """RAM or data drives as bought: `count` of one module or drive."""

    item: Dimm | Drive
    count: int
    price: float
    gb: int  # RAM, or data NVMe rounded down


def _cheapest_first(options: list[Part]) -> tuple[Part, ...]:
    """By price, keeping an option only when it holds more than every cheaper one."""
    kept: list[Part] = []
    for part in sorted(options, key=lambda p: (p.price, -p.gb, p.item.id)):
        if not kept or part.gb > kept[-1].gb:
            kept.append(part)
    return tuple(kept)


def ram_options(catalogue: Catalogue, chassis: Chassis, gpu: Gpu) -> tuple[Part, ...]:
    """One module in every DIMM slot, at least `host_ram_per_gpu_memory` × GPU memory, cheapest first."""
    slots = chassis.dimm_slots
    need = catalogue.rules.host_ram_per_gpu_memory * gpu.memory_gb * chassis.gpu_slots
    return _cheapest_first(
        [
            Part(d, slots, unit_price(catalogue, d.id) * slots, d.gb * slots)
            for d in catalogue.dimms
            if d.gb * slots >= need
        ]
    )


def disk_options(catalogue: Catalogue, chassis: Chassis) -> tuple[Part, ...]:
    """Data drives of one model within the bays, at least `data_tb_per_socket` per socket, cheapest first."""
    need = catalogue.rules.data_tb_per_socket * 1000 * chassis.sockets
    options = [
        Part(d, n, unit_price(catalogue, d.id) * n, math.floor(d.tb * 1000 * n))
        for d in catalogue.drives
        if d.role == "data"
        for n in range(1, chassis.drive_bays + 1)
    ]
    return _cheapest_first([p for p in options if p.gb >= need])


def cheapest(options: tuple[Part, ...], need_gb: float) -> Part | None:
    """The cheapest option holding `need_gb` (options come cheapest first, growing)."""
    return next((p for p in options if p.gb >= need_gb), None)


def shard_domain(gpu: Gpu, sizing: Sizing) -> int:
    """Sharded copies on NVLink cards stay in one bridge's domain, or span the largest domains."""
    if sizing.strategy != Strategy.FSDP or gpu.nvlink is None:
        return 0
    if not gpu.nvlink.bridge_sizes:  # an SXM module: its board's NVSwitch joins all eight
        return min(sizing.gpus, 8)
    return min(sizing.gpus, max(gpu.nvlink.bridge_sizes))


def holds(layout: Layout, mode: Mode) -> bool:
    """Same card, enough slots, and bridges large enough for its shards (exactly the largest size
    when it spans several domains)."""
    if mode.sizing.gpu != layout.gpu.id or mode.gpus > layout.gpu_count:
        return False
    return mode.domain == 0 or layout.domain_size >= mode.domain


def modes(catalogue: Catalogue, workload: Workload, cards: set[str]) -> list[list[Mode]]:
    """Per run, every fitting way to train one copy on the cards some layout has, in spreadsheet
    order, with modes that need no less of every resource than another dropped."""
    gpus = [g for g in catalogue.gpus if g.id in cards]
    per_run = []
    for index, run in enumerate(workload.runs):
        profile = profile_run(run, catalogue)
        found = [
            Mode(index, s, shard_domain(gpu, s))
            for gpu in gpus
            for s in copy_sizings(profile, gpu, workload.sizing, profile.rollout)
            if s.fits
        ]
        per_run.append(sorted(_undominated(found), key=lambda m: m.order))
    return per_run


def _needs(mode: Mode) -> tuple[float, ...]:
    return (mode.gpus, mode.domain, mode.ram_gb, mode.nvme_gb, mode.memory_need, mode.order[2])


def _undominated(found: list[Mode]) -> list[Mode]:
    """Drop a mode when another on the same card needs no more of anything (first kept on ties)."""
    kept: list[Mode] = []
    for mode in sorted(found, key=lambda m: (m.sizing.gpu, _needs(m))):
        if not any(
            k.sizing.gpu == mode.sizing.gpu
            and all(a <= b for a, b in zip(_needs(k), _needs(mode), strict=True))
            for k in kept
        ):
            kept.append(mode)
    return kept
