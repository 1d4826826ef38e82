"""Server builds: chassis, card, bridges, power cap and the cheapest host around them.

Why builds and not free component choices in CP-SAT: most components are dominated once the card
count is known. The cheapest CPU pair with ≥ 6 cores per GPU, the smallest DIMM that fills every
channel alike and gives 2 × GPU memory, the cheapest drives that give 2 TB per socket: each is a
function of the build, so it is fixed here, before the model sees it. Only servers that must hold
offloaded optimiser states or large checkpoints need more RAM or disk; those choose from the
`upgrades` of their build inside the model. Power caps lower the draw at the same price, so a
build takes the highest cap its feed allows; the feed and the room's inlet temperature filter
builds out entirely, and each filter records why, for the explanation of an infeasible bid.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Bridge, Catalogue, Chassis, Cpu, Dimm, Drive, Feed, Gpu, Nic
from ftopt.model.mig import MigProfile
from ftopt.model.power import Parts, load_w, planned_load_w, supplies_carry, supplies_words, wall_w
from ftopt.model.timing import server_energy_cost
from ftopt.model.topology import Topology, largest_domain, topology_of
from ftopt.model.workload import Workload


@dataclass(frozen=True)
class RamTier:
    """One way to fill every DIMM slot with the same module."""

    dimm: Dimm
    count: int
    price: float

    @property
    def gb(self) -> int:
        """Host RAM, GB."""
        return self.dimm.gb * self.count


@dataclass(frozen=True)
class DiskTier:
    """Data drives of one model, `count` of them."""

    drive: Drive
    count: int
    price: float

    @property
    def gb(self) -> float:
        """Data NVMe, GB."""
        return self.drive.tb * 1000 * self.count


@dataclass(frozen=True)
class Build:
    """A server build: everything but per-server RAM and disk upgrades is fixed."""

    chassis: Chassis
    gpu: Gpu
    gpu_count: int
    bridge: Bridge | None
    power_cap_w: int
    cpu: Cpu
    boot: Drive
    ram: RamTier
    disk: DiskTier
    power_w: int
    feed: Feed
    fixed_price: float  # chassis, cards, bridges, CPUs, boot drive
    ram_upgrades: tuple[RamTier, ...] = field(default=())
    disk_upgrades: tuple[DiskTier, ...] = field(default=())
    energy_cost: float = 0.0  # `objective: tco`: the server's energy over the years, to the cent
    # Multi-node servers (ftopt/solver/problem/multinode.py): their fabric NICs, in fixed_price and power_w.
    nic: Nic | None = None
    nic_count: int = 0
    owned: int | None = None  # index of the workload's inventory entry: a server the customer owns
    # What the parts draw from the supplies with the hungriest RAM and disk tiers; power_w is the draw
    # at the wall the power rules plan with: the parts, or the vendor's published maximum where larger.
    load_w: float = 0.0
    # GPU slices (MIG): every card of the server split into `mig_count` instances of `mig`; each
    # instance is one slot a single-GPU copy of a slice mode takes (ftopt/model/mig.py).
    mig: MigProfile | None = None
    mig_count: int = 0

    @property
    def slots(self) -> int:
        """What copies are dealt onto: the cards, or every instance of every sliced card."""
        return self.gpu_count * self.mig_count if self.mig else self.gpu_count

    def slot_card(self, slot: int) -> tuple[int, int]:
        """The card index and the instance index on it of one slot (a whole card: instance 0)."""
        return divmod(slot, self.mig_count) if self.mig else (slot, 0)

    @cached_property
    def topology(self) -> Topology:
        """The server's interconnect, from its chassis, card and bridges."""
        return topology_of(self.chassis, self.gpu, self.bridge.size if self.bridge else 0, self.gpu_count)

    @property
    def domain_size(self) -> int:
        """Cards per NVLink domain (bridge or NVSwitch baseboard), from the topology; 1 when none."""
        return self.topology.largest_domain or 1

    @property
    def largest_domain(self) -> int:
        """The largest domain a sharded copy of this card may be asked to stay in, on this chassis."""
        return largest_domain(self.chassis, self.gpu)

    @property
    def bridge_count(self) -> int:
        """Bridges in the server."""
        return self.gpu_count // self.bridge.size if self.bridge else 0

    @property
    def price(self) -> float:
        """Price with the base RAM and disk."""
        return self.fixed_price + self.ram.price + self.disk.price

    @property
    def max_inlet_c(self) -> float:
        """Warmest inlet this build accepts: the card's, the chassis' and the pair's limit."""
        return self.chassis.inlet_limit_c(self.gpu)

    def units(self) -> dict[str, int]:
        """Units of each part the build fixes, by catalogue id (what stock counts): chassis, cards,
        bridges, CPUs, boot drive and fabric NICs; memory and data drives come with the tiers."""
        units = {self.chassis.id: 1, self.gpu.id: self.gpu_count, self.cpu.id: self.chassis.sockets}
        units[self.boot.id] = units.get(self.boot.id, 0) + 1
        if self.bridge:
            units[self.bridge.id] = self.bridge_count
        if self.nic:
            units[self.nic.id] = self.nic_count
        if self.owned is not None:
            units[owned_item(self.owned)] = 1
        return units

    @property
    def key(self) -> str:
        """A readable, unique, deterministic name."""
        bridges = f"{self.bridge_count}x{self.bridge.size}way" if self.bridge else "nobridge"
        if self.chassis.nvswitch:
            bridges = "nvswitch"
        nics = f"/{self.nic_count}x{self.nic.id}" if self.nic else ""
        cards = f"{self.gpu_count}x{self.gpu.id}"
        owned = f"/owned{self.owned}" if self.owned is not None else ""
        sliced = f"/mig{self.mig_count}x{self.mig.name}" if self.mig else ""
        return f"{self.chassis.id}/{cards}/{bridges}/{self.power_cap_w}W/{self.cpu.id}{nics}{owned}{sliced}"


def build_parts(
    chassis: Chassis, gpu_w: int, count: int, cpu: Cpu, boot: Drive, ram: RamTier, disk: DiskTier
) -> Parts:
    """The parts that draw power in a server of this build with these RAM and disk tiers."""
    return Parts(chassis, gpu_w, count, cpu, ram.dimm, ram.count, boot, disk.drive, disk.count)


def hungriest(rams: list[RamTier], disks: list[DiskTier]) -> tuple[RamTier, DiskTier]:
    """The RAM and disk tiers that draw the most."""
    ram = max(rams, key=lambda t: (t.dimm.watts * t.count, t.gb))
    disk = max(disks, key=lambda t: (t.drive.watts * t.count, t.gb))
    return ram, disk


def _unit_price(catalogue: Catalogue, item_id: str) -> float:
    return catalogue.price(item_id).amount


Tier = TypeVar("Tier", RamTier, DiskTier)


def ram_tiers(catalogue: Catalogue, chassis: Chassis, at_least_gb: float) -> list[RamTier]:
    """Every DIMM size that fills all slots alike with ≥ `at_least_gb`, dominated ones dropped."""
    tiers = sorted(
        (
            RamTier(d, chassis.dimm_slots, _unit_price(catalogue, d.id) * chassis.dimm_slots)
            for d in catalogue.dimms
            if d.gb * chassis.dimm_slots >= at_least_gb
        ),
        key=lambda t: (t.price, -t.gb, t.dimm.id),
    )
    return _pareto(tiers)


def disk_tiers(catalogue: Catalogue, chassis: Chassis, at_least_gb: float) -> list[DiskTier]:
    """Every drive model and count the bays hold with ≥ `at_least_gb`, dominated ones dropped."""
    modes = [
        DiskTier(d, n, _unit_price(catalogue, d.id) * n)
        for d in catalogue.drives
        if d.role == "data"
        for n in range(1, chassis.drive_bays + 1)
        if d.tb * 1000 * n >= at_least_gb
    ]
    return _pareto(sorted(modes, key=lambda t: (t.price, -t.gb, t.drive.id)))


def _pareto(tiers_by_price: list[Tier]) -> list[Tier]:
    """Keep a tier only if it holds more than every cheaper one."""
    kept: list[Tier] = []
    for tier in tiers_by_price:
        if not kept or tier.gb > kept[-1].gb:
            kept.append(tier)
    return kept


@dataclass(frozen=True)
class _Host:
    """The CPU and card setting of a build, and its draw with the hungriest tiers."""

    cpu: Cpu
    cap: int
    load_w: float
    power_w: int


def _cheapest_host(
    catalogue: Catalogue,
    chassis: Chassis,
    gpu: Gpu,
    count: int,
    feed: Feed,
    fill: tuple[Drive, RamTier, DiskTier],
) -> _Host | None:
    """The cheapest CPU with enough cores whose server the feed and the supplies can power at some
    card setting, and the highest such setting."""
    rules = catalogue.rules
    cpus = sorted(
        (
            c
            for c in catalogue.cpus
            if c.cores * chassis.sockets >= rules.cores_per_gpu * count and chassis.fits(c)
        ),
        key=lambda c: (_unit_price(catalogue, c.id), c.tdp_w, c.id),
    )
    for cpu in cpus:
        for cap in gpu.power_settings_w:
            load = load_w(build_parts(chassis, cap, count, cpu, *fill))
            planned = planned_load_w(chassis, cap, count, load)
            power = wall_w(chassis, planned)
            if power <= feed.usable_w and supplies_carry(chassis, planned):
                return _Host(cpu, cap, load, power)
    return None


def _layouts(catalogue: Catalogue, chassis: Chassis, gpu: Gpu, count: int) -> list[Bridge | None]:
    """No bridges, or bridges of one size filling the server (bridged cards share a socket); an
    NVSwitch baseboard takes none."""
    layouts: list[Bridge | None] = [None]
    if chassis.nvswitch:
        return layouts
    for size in sorted(gpu.nvlink.bridge_sizes if gpu.nvlink else ()):
        bridge = catalogue.bridge_for(gpu.id, size)
        if bridge and count % size == 0:
            layouts.append(bridge)
    return layouts


@dataclass
class BuildSet:
    """The builds a workload may use, and why others were left out."""

    builds: list[Build]
    excluded: list[Finding]


def _allowed(ids: tuple[str, ...] | None, item_id: str) -> bool:
    return ids is None or item_id in ids


def enumerate_builds(catalogue: Catalogue, workload: Workload) -> BuildSet:
    """All builds the catalogue, the hardware limits, the feed and the inlet temperature allow.

    A site of racks has several circuit feeds: each build is made for each feed (a smaller circuit
    may need capped cards), largest feed first, and a build that comes out the same for two feeds is
    kept once; why a card or chassis was left out is told for the largest feed only.
    """
    feeds = sorted((catalogue.feed(f) for f in workload.site.feed_ids), key=lambda f: -f.usable_w)
    builds: dict[str, Build] = {}
    excluded: list[Finding] = []
    for i, feed in enumerate(feeds):
        found = _builds_on(catalogue, workload, feed, excluded if i == 0 else [])
        builds.update((b.key, b) for b in found if b.key not in builds)
    chosen = list(builds.values())
    if workload.objective == "tco":
        chosen = [
            replace(b, energy_cost=round(server_energy_cost(b.power_w, workload.energy), 2)) for b in chosen
        ]
    return BuildSet(chosen, excluded)


def _builds_on(catalogue: Catalogue, workload: Workload, feed: Feed, excluded: list[Finding]) -> list[Build]:
    """The builds one feed can power, within the hardware limits, the inlet, the coolant (liquid-cooled
    chassis) and (racked) rack units."""
    boot = min(
        (d for d in catalogue.drives if d.role == "boot"),
        key=lambda d: (_unit_price(catalogue, d.id), d.id),
    )
    builds: list[Build] = []
    for gpu, chassis in _allowed_pairs(catalogue, workload):
        ruled_out = _site_rules_out(workload, chassis, gpu)
        if ruled_out is not None:
            excluded.extend(ruled_out)
            continue
        found = _builds_for(catalogue, chassis, gpu, feed, boot, excluded)
        builds.extend(found + (sliced_builds(gpu, found) if slicing_allowed(workload) else []))
    return builds


def _allowed_pairs(catalogue: Catalogue, workload: Workload) -> Iterator[tuple[Gpu, Chassis]]:
    """Every card and chassis the hardware limits allow, the chassis taking the card."""
    limits = workload.hardware
    for gpu in catalogue.gpus:
        if not _allowed(limits.gpus, gpu.id):
            continue
        for chassis in catalogue.chassis:
            if _allowed(limits.chassis, chassis.id) and chassis.takes(gpu):
                yield gpu, chassis


def _site_rules_out(workload: Workload, chassis: Chassis, gpu: Gpu) -> list[Finding] | None:
    """None when the site takes the pair; else why not, as findings for the quote: the room's inlet
    is too warm, the coolant does not suit a liquid-cooled chassis (said only when the bid asks for
    liquid), or racks need a rack-mounted chassis."""
    site = workload.site
    limit = chassis.inlet_limit_c(gpu)
    if site.inlet_c > limit:
        return [finding(FindingKind.INLET, gpu.id, inlet_c=site.inlet_c, chassis=chassis.id, limit_c=limit)]
    fault = chassis.coolant_fault(site.coolant_c)
    if fault is not None:
        asked = _asks_for_liquid(workload, chassis)
        return [finding(FindingKind.COOLANT, chassis.id, gpu=gpu.id, why=fault)] if asked else []
    if site.racks is not None and chassis.rack_units is None:
        return [finding(FindingKind.RACKS, chassis.id, gpu=gpu.id)]
    return None


def slicing_allowed(workload: Workload) -> bool:
    """GPU slices are offered unless the workload forbids them (`sizing.mig: false`); queue mode plans
    whole cards only (its interval model holds one job per card)."""
    return workload.sizing.mig and workload.queue is None


def sliced_builds(gpu: Gpu, builds: list[Build]) -> list[Build]:
    """The unbridged build of a MIG card again, its cards split into each uniform layout the vendor
    lists (4 × 1g.24gb, 2 × 2g.48gb): the same parts and price, more and smaller places for copies."""
    if gpu.mig is None:
        return []
    plain = [b for b in builds if b.bridge is None]
    return [
        replace(b, mig=profile, mig_count=count)
        for b in plain
        for profile, count in gpu.mig.uniform_layouts()
    ]


def _asks_for_liquid(workload: Workload, chassis: Chassis) -> bool:
    """Whether a liquid-cooled chassis left out is worth a finding: the site has liquid cooling (a
    coolant supply or a rack's loop) or the hardware limits name the chassis. An air-only room
    otherwise hears nothing of liquid-cooled servers it never asked for."""
    site, named = workload.site, workload.hardware.chassis
    loops = any(rack.liquid_kw is not None for rack in site.racks or ())
    return site.coolant_c is not None or loops or (named is not None and chassis.id in named)


def _builds_for(
    catalogue: Catalogue, chassis: Chassis, gpu: Gpu, feed: Feed, boot: Drive, excluded: list[Finding]
) -> list[Build]:
    rules = catalogue.rules
    count = chassis.gpu_slots
    gpu_memory = gpu.memory_gb * count
    rams = ram_tiers(catalogue, chassis, rules.host_ram_per_gpu_memory * gpu_memory)
    disks = disk_tiers(catalogue, chassis, rules.data_tb_per_socket * 1000 * chassis.sockets)
    if not rams or not disks:
        excluded.append(finding(FindingKind.CHASSIS, chassis.id, gpu_count=count, gpu=gpu.id))
        return []
    fill = (boot, rams[0], disks[0])
    host = _cheapest_host(catalogue, chassis, gpu, count, feed, fill)
    if host is None:
        excluded.append(_unpowered(catalogue, chassis, gpu, feed, fill))
        return []
    rams, disks, host = _powered_tiers(chassis, count, feed, boot, host, (rams, disks))
    builds = []
    for bridge in _layouts(catalogue, chassis, gpu, count):
        fixed = (
            _unit_price(catalogue, chassis.id)
            + _unit_price(catalogue, gpu.id) * count
            + _unit_price(catalogue, host.cpu.id) * chassis.sockets
            + _unit_price(catalogue, boot.id)
            + (_unit_price(catalogue, bridge.id) * (count // bridge.size) if bridge else 0.0)
        )
        builds.append(
            Build(
                chassis,
                gpu,
                count,
                bridge,
                host.cap,
                host.cpu,
                boot,
                rams[0],
                disks[0],
                host.power_w,
                feed,
                fixed,
                tuple(rams),
                tuple(disks),
                load_w=host.load_w,
            )
        )
    return builds


def _powered_tiers(
    chassis: Chassis,
    count: int,
    feed: Feed,
    boot: Drive,
    host: _Host,
    tiers: tuple[list[RamTier], list[DiskTier]],
) -> tuple[list[RamTier], list[DiskTier], _Host]:
    """The RAM and disk upgrades the feed and the supplies still power at the host's card setting,
    and the host's draw with the hungriest of them: a build's power is that bound, so that no
    upgrade the model may choose overloads a feed, a circuit or the supplies. The base tiers
    always stay (the host was chosen with them)."""

    def load(ram: RamTier, disk: DiskTier) -> float:
        return load_w(build_parts(chassis, host.cap, count, host.cpu, boot, ram, disk))

    def fits(watts: float) -> bool:
        planned = planned_load_w(chassis, host.cap, count, watts)
        return wall_w(chassis, planned) <= feed.usable_w and supplies_carry(chassis, planned)

    rams, disks = tiers
    rams = [r for r in rams if fits(load(r, disks[0]))]
    top_ram = hungriest(rams, disks)[0]
    disks = [d for d in disks if fits(load(top_ram, d))]
    most = load(*hungriest(rams, disks))
    power = wall_w(chassis, planned_load_w(chassis, host.cap, count, most))
    return rams, disks, replace(host, load_w=most, power_w=power)


def _unpowered(
    catalogue: Catalogue, chassis: Chassis, gpu: Gpu, feed: Feed, fill: tuple[Drive, RamTier, DiskTier]
) -> Finding:
    """Why no card setting powers the build: the supplies when even they cannot carry its least
    draw, else the feed."""
    cap = min(gpu.power_settings_w)
    fitting = [c for c in catalogue.cpus if chassis.fits(c)] or list(catalogue.cpus)
    cpu = min(fitting, key=lambda c: c.tdp_w)
    parts = load_w(build_parts(chassis, cap, chassis.gpu_slots, cpu, *fill))
    load = planned_load_w(chassis, cap, chassis.gpu_slots, parts)
    if not supplies_carry(chassis, load):
        return finding(
            FindingKind.SUPPLIES,
            gpu.id,
            chassis=chassis.id,
            supplies=supplies_words(chassis),
            capacity_w=chassis.psu_capacity_w,
            gpu_count=chassis.gpu_slots,
            need_w=math.ceil(load),
            cap_w=cap,
        )
    return finding(
        FindingKind.FEED,
        gpu.id,
        feed=feed.id,
        feed_usable_w=feed.usable_w,
        gpu_count=chassis.gpu_slots,
        need_w=wall_w(chassis, load),
        cap_w=cap,
    )


def owned_item(entry: int) -> str:
    """The pseudo part one owned server of inventory entry `entry` uses: its count is the limit."""
    return f"owned:{entry}"


def within_stock(limit: Callable[[str], int | None], servers: list[dict[str, int]]) -> bool:
    """Whether servers with these fixed parts (`Build.units`) use no part beyond its limit (a part's
    stock, or how many servers of an inventory entry are owned)."""
    used: Counter[str] = Counter()
    for units in servers:
        used.update(units)
    return all((most := limit(item)) is None or count <= most for item, count in used.items())
