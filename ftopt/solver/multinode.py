"""Multi-node copies in the count model: their modes, their options, their counts and the fabric.

A multi-node copy (16, 32 or 64 GPUs, `ftopt.model.fabric`) takes k whole servers of one build and
nothing else goes on them, so it needs no buddy blocks: per (mode, build) the model counts copies,
each worth k servers at a fixed price. Those servers carry the fabric NICs (a *networked* build:
the build with its NICs in its price and power), with the cheapest RAM and disk tiers holding each
server's share of the copy's host RAM and checkpoints.

The fabric is counted too, so the price stays proven optimal. NIC ports P = Σ ports per copy ×
copies. Per switch kit s (radix R, at most one kit is bought), with integer leaves L, spines S,
uplinks U, cable units C and a boolean t for two levels:

    P_s ≤ R + M·t_s                         one leaf holds at most R ports
    (R/2)·L_s ≥ P_s − M·(1 − t_s),  L_s ≥ z_s   two levels: half of each leaf's ports down
    U_s ≥ (R/2)·L_s − M'·(1 − t_s)          and half up
    R·S_s ≥ U_s                             spines for every uplink
    links·C ≥ P_s (NIC cables), links·C' ≥ U_s (leaf–spine cables)

With the price minimised these are exactly `ftopt.model.fabric.size_fabric`'s counts for P (no
enumeration of port totals is needed), and the plan builder re-derives the fabric from P alone.

Pruning, each exact: of a run's multi-node options on one build, one that costs no less, needs no
fewer ports and is no more preferred than another is dropped; and an option is dropped when a
single-server mode of the same run and card is no less preferred and a server of some build holding
that copy alone costs no more than the option's k servers (one server replaces k, their ports leave
the fabric, and fabric cost never falls as ports are removed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import count
from typing import TYPE_CHECKING

from ortools.sat.python import cp_model

from ftopt.model.fabric import (
    MULTI_NODE_STRATEGIES,
    Network,
    cheapest_fabric,
    fabric_kits,
    fabric_nic,
    multinode_copy_speed,
    nics_per_server,
    node_network,
    size_multinode,
)
from ftopt.model.hardware import Catalogue, Nic
from ftopt.model.plan import Fabric, FabricLinks, FabricSwitch, LineItem, Server
from ftopt.model.sizing import RunProfile, Sizing, gpu_count_choices, optimizer_choices
from ftopt.model.speed import Host, Speed, hours_to_train
from ftopt.model.timing import copy_host
from ftopt.model.workload import MULTI_NODE_COUNTS, Offload, Optimizer, Strategy
from ftopt.solver.builds import Build, DiskTier, RamTier
from ftopt.solver.configs import cheapest_tier
from ftopt.solver.layout import ServerLayout
from ftopt.solver.modes import Mode

if TYPE_CHECKING:
    from ftopt.solver.problem import ProblemData
    from ftopt.solver.variables import Variables


@dataclass(frozen=True)
class MultiNodeMode(Mode):
    """A mode whose copy spans `gpus // node_gpus` whole servers of build `build`."""

    node_gpus: int
    build: int  # index into ProblemData.builds

    @property
    def nodes(self) -> int:
        """Servers one copy takes."""
        return self.gpus // self.node_gpus

    @property
    def preference(self) -> int:
        """8-bit Adam and sharding count against it, and full sharding over the network twice more:
        hybrid sharding keeps the gathers on NVLink."""
        sizing = self.sizing
        return (sizing.optimizer == Optimizer.ADAMW_8BIT) + 1 + 2 * (sizing.strategy == Strategy.FSDP)


@dataclass(frozen=True)
class MultiNodeOption:
    """A multi-node mode on its networked build, with each server's RAM and disk tiers."""

    mode: int  # index into ProblemData.modes
    build: Build  # the networked build: NICs in its fixed price and power
    nodes: int
    ram: RamTier
    disk: DiskTier

    @property
    def server_price(self) -> float:
        """One of its servers, NICs included."""
        return self.build.fixed_price + self.ram.price + self.disk.price

    @property
    def price(self) -> float:
        """All k servers of one copy (the fabric is priced apart)."""
        return self.nodes * self.server_price

    @property
    def ports(self) -> int:
        """NIC ports one copy brings to the fabric."""
        nic = self.build.nic
        return self.nodes * self.build.nic_count * (nic.ports if nic else 0)


def networked_build(catalogue: Catalogue, build: Build, nic: Nic) -> Build | None:
    """The build with one NIC per GPU (or per NIC slot), priced and powered; None when its chassis
    has no NIC slots or the feed cannot carry the NICs too."""
    nics = nics_per_server(build.chassis, build.gpu_count)
    if nics == 0:
        return None
    power = build.power_w + math.ceil(nics * nic.power_w)
    if power > build.feed.usable_w:
        return None
    price = build.fixed_price + catalogue.price(nic.id).amount * nics
    energy = build.energy_cost * power / build.power_w if build.power_w else 0.0  # linear in the draw
    return replace(build, nic=nic, nic_count=nics, fixed_price=price, power_w=power, energy_cost=energy)


def _single_server_price(data: ProblemData, mode: Mode) -> float | None:
    """The cheapest server of any build holding one copy of a single-server mode alone."""
    from ftopt.solver.problem import compatible

    reserve = data.catalogue.rules.host_ram_reserve_gb
    prices = []
    for build in data.builds:
        if not compatible(mode, build):
            continue
        ram = cheapest_tier(build.ram_upgrades, mode.host_ram_gb + reserve)
        disk = cheapest_tier(build.disk_upgrades, mode.nvme_gb)
        if ram is not None and disk is not None:
            prices.append(build.fixed_price + ram.price + disk.price)
    return min(prices, default=None)


def _options_on(data: ProblemData, run: int, f: int, build: Build, nic: Nic) -> list[MultiNodeOption]:
    """The undominated multi-node options of one run on one build (mode indices still unset)."""
    catalogue, profile = data.catalogue, data.profiles[run]
    networked = networked_build(catalogue, build, nic)
    if networked is None or profile.run.offload == Offload.CPU:
        return []
    n = build.gpu_count
    net = node_network(build.gpu, n, nic, networked.nic_count, catalogue.speed)
    reserve = catalogue.rules.host_ram_reserve_gb
    limit = data.workload.site.max_servers
    found: list[tuple[MultiNodeMode, MultiNodeOption]] = []
    for gpus in gpu_count_choices(profile.run):
        nodes = gpus // n
        if gpus not in MULTI_NODE_COUNTS or gpus % n or nodes < 2 or (limit is not None and nodes > limit):
            continue
        for strategy in MULTI_NODE_STRATEGIES:
            for optimizer in optimizer_choices(profile.run, profile.stack):
                sizing = size_multinode(
                    profile, build.gpu, gpus, strategy, optimizer, data.workload.sizing, net
                )
                if not sizing.fits or late(profile, sizing, networked, net, catalogue):
                    continue
                ram = cheapest_tier(build.ram_upgrades, sizing.host_ram_gb / nodes + reserve)
                disk = cheapest_tier(build.disk_upgrades, sizing.nvme_gb / nodes)
                if ram is None or disk is None:
                    continue
                mode = MultiNodeMode(run, sizing, 0, n, f)
                found.append((mode, MultiNodeOption(-1, networked, nodes, ram, disk)))
    kept: list[tuple[MultiNodeMode, MultiNodeOption]] = []
    for mode, option in sorted(found, key=lambda p: (p[1].price, p[1].ports, p[0].preference, p[0].gpus)):
        if not any(
            k.price <= option.price and k.ports <= option.ports and km.preference <= mode.preference
            for km, k in kept
        ):
            kept.append((mode, option))
    singles = [data.modes[o] for o in data.modes_of(run) if not isinstance(data.modes[o], MultiNodeMode)]
    single_prices = [(m, _single_server_price(data, m)) for m in singles if m.gpu == build.gpu.id]
    result = []
    for mode, option in kept:
        if any(
            p is not None and p <= option.price and m.preference <= mode.preference for m, p in single_prices
        ):
            continue
        data.modes.append(mode)
        result.append(replace(option, mode=len(data.modes) - 1))
    return result


def node_host(build: Build, catalogue: Catalogue) -> Host | None:
    """What one server of a multi-node copy's host gives it: all its cores and one socket's DRAM."""
    constants = catalogue.speed
    if constants is None:
        return None
    cores = build.cpu.cores * build.chassis.sockets
    return copy_host(build.cpu.memory_channels, cores, build.gpu_count, build.gpu_count, constants)


def copy_speed(
    profile: RunProfile, sizing: Sizing, build: Build, net: Network, catalogue: Catalogue
) -> Speed | None:
    """The speed model's estimate of a multi-node copy on servers of `build` (None without speed data)."""
    host, constants = node_host(build, catalogue), catalogue.speed
    if host is None or constants is None:
        return None
    return multinode_copy_speed(profile, sizing, build.gpu, host, net, constants)


def late(profile: RunProfile, sizing: Sizing, build: Build, net: Network, catalogue: Catalogue) -> bool:
    """Whether a multi-node copy so sized would miss its run's deadline (never without one)."""
    run = profile.run
    if run.deadline_hours is None or run.train_tokens is None:
        return False
    speed = copy_speed(profile, sizing, build, net, catalogue)
    return speed is not None and hours_to_train(run.train_tokens, speed) > run.deadline_hours


def add_multinode(data: ProblemData) -> None:
    """Append the multi-node modes of every run to `data.modes` and their options to `data.multinode`.

    Called after the light pool and heavy classes are made: a multi-node mode is compatible with no
    build as a light or heavy copy (its GPUs exceed any server's), so it only ever appears here.
    """
    nic = fabric_nic(data.catalogue)
    if nic is None or not fabric_kits(data.catalogue):
        return
    for f, build in enumerate(data.builds):
        for run in range(len(data.profiles)):
            data.multinode += _options_on(data, run, f, build, nic)


def has_multinode(data: ProblemData, run: int) -> bool:
    """Whether a run has a multi-node option."""
    return any(data.modes[o.mode].run == run for o in data.multinode)


# --- The model ----------------------------------------------------------------------------------


def add_variables(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Copies per multi-node option, and the servers they take (k per copy)."""
    for i, option in enumerate(data.multinode):
        run = data.modes[option.mode].run
        copies = model.new_int_var(0, data.copies[run], f"multinode[{i}]")
        servers = model.new_int_var(0, data.copies[run] * option.nodes, f"multinode_servers[{i}]")
        model.add(servers == option.nodes * copies)
        v.multinode_copies[option.mode] = copies
        v.multinode_servers[option.mode] = servers


def _cents(amount: float) -> int:
    return round(amount * 100)


def add_fabric(model: cp_model.CpModel, data: ProblemData, v: Variables) -> cp_model.LinearExprT:
    """The fabric's switches and cables as counts; returns their price in cents (0 without options)."""
    if not data.multinode:
        return 0
    catalogue = data.catalogue
    terms = [
        (o.ports, v.multinode_copies[o.mode], data.copies[data.modes[o.mode].run]) for o in data.multinode
    ]
    most = sum(ports * copies for ports, _, copies in terms)
    ports = sum(p * x for p, x, _ in terms)
    shares, chosen, price = [], [], []
    for s, kit in enumerate(fabric_kits(catalogue)):
        radix, half = kit.switch.ports, kit.switch.ports // 2
        cap = min(most, radix * half)
        leaves_most = max(1, math.ceil(cap / half))
        z = model.new_bool_var(f"fabric[{s}]")
        two = model.new_bool_var(f"two_level[{s}]")
        share = model.new_int_var(0, cap, f"ports[{s}]")
        leaves = model.new_int_var(0, leaves_most, f"leaves[{s}]")
        uplinks = model.new_int_var(0, half * leaves_most, f"uplinks[{s}]")
        spines = model.new_int_var(0, math.ceil(half * leaves_most / radix), f"spines[{s}]")
        nic_cables = model.new_int_var(0, math.ceil(cap / kit.nic_cable.links), f"nic_cables[{s}]")
        link_cables = model.new_int_var(
            0, math.ceil(half * leaves_most / kit.link_cable.links), f"links[{s}]"
        )
        model.add(share <= cap * z)
        model.add(two <= z)
        model.add(leaves >= z)
        model.add(share <= radix + cap * two)
        model.add(half * leaves >= share - cap * (1 - two))
        model.add(uplinks >= half * leaves - half * leaves_most * (1 - two))
        model.add(radix * spines >= uplinks)
        model.add(kit.nic_cable.links * nic_cables >= share)
        model.add(kit.link_cable.links * link_cables >= uplinks)
        shares.append(share)
        chosen.append(z)
        price += [
            _cents(catalogue.price(kit.switch.id).amount) * (leaves + spines),
            _cents(catalogue.price(kit.nic_cable.id).amount) * nic_cables,
            _cents(catalogue.price(kit.link_cable.id).amount) * link_cables,
        ]
    model.add(sum(shares) == ports)
    model.add(sum(chosen) <= 1)
    return sum(price)


def price_terms(data: ProblemData, v: Variables) -> list[cp_model.LinearExprT]:
    """Cents of every multi-node option's servers, by copies (the fabric is `v.fabric_cents`)."""
    return [
        (_cents(o.price) + o.nodes * _cents(o.build.energy_cost)) * v.multinode_copies[o.mode]
        for o in data.multinode
    ]


# --- From counts to servers ---------------------------------------------------------------------


def decode(data: ProblemData, v: Variables, solver: cp_model.CpSolver) -> list[ServerLayout]:
    """k servers per multi-node copy, each holding all its GPUs; a copy's servers share a group id."""
    servers = []
    groups = count()
    for option in data.multinode:
        mode = data.modes[option.mode]
        for _ in range(solver.value(v.multinode_copies[option.mode])):
            group = next(groups)
            gpus = list(range(option.build.gpu_count))
            servers += [
                ServerLayout(option.build, option.ram, option.disk, [(mode, gpus)], group=group)
                for _ in range(option.nodes)
            ]
    return servers


def nic_ports(servers: list[ServerLayout]) -> int:
    """NIC ports of all networked servers."""
    return sum(s.build.nic_count * s.build.nic.ports for s in servers if s.build.nic)


def fabric_price(catalogue: Catalogue, servers: list[ServerLayout]) -> float:
    """What the least-priced fabric for the servers' NIC ports costs (0 without any)."""
    fabric = cheapest_fabric(catalogue, nic_ports(servers))
    return fabric.price(catalogue) if fabric else 0.0


# --- The plan's fabric section ------------------------------------------------------------------


def _line(catalogue: Catalogue, item: str, name: str, quantity: int) -> LineItem:
    unit = catalogue.price(item).amount
    return LineItem(item=item, name=name, quantity=quantity, unit_price=unit, price=round(unit * quantity, 2))


def build_fabric(catalogue: Catalogue, servers: list[Server]) -> Fabric | None:
    """The fabric section for the plan's networked servers: the least-priced switches and cables for
    their NIC ports (what the model's fabric counts come to), with its own bill of materials."""
    networked = [s for s in servers if s.nic and s.nic_count]
    if not networked:
        return None
    nic = catalogue.nic(networked[0].nic or "")
    ports = sum(s.nic_count * catalogue.nic(s.nic or "").ports for s in networked)
    size = cheapest_fabric(catalogue, ports)
    if size is None:
        raise RuntimeError(f"internal error: no fabric for {ports} NIC ports")
    switch = size.kit.switch
    switches = [FabricSwitch(id=switch.id, role="leaf", count=size.leaves, ports_used=ports + size.uplinks)]
    if size.spines:
        switches.append(FabricSwitch(id=switch.id, role="spine", count=size.spines, ports_used=size.uplinks))
    links = [
        FabricLinks(joins="switch-nic", links=ports, cable=size.kit.nic_cable.id, cables=size.nic_cables)
    ]
    if size.uplinks:
        links.append(
            FabricLinks(
                joins="switch-switch",
                links=size.uplinks,
                cable=size.kit.link_cable.id,
                cables=size.link_cables,
            )
        )
    lines = [_line(catalogue, switch.id, switch.name, size.leaves + size.spines)]
    lines.append(_line(catalogue, size.kit.nic_cable.id, size.kit.nic_cable.name, size.nic_cables))
    if size.link_cables:
        lines.append(_line(catalogue, size.kit.link_cable.id, size.kit.link_cable.name, size.link_cables))
    return Fabric(
        nic=nic.id,
        nics_per_server={s.id: s.nic_count for s in networked},
        nic_ports=ports,
        switches=switches,
        links=links,
        price=round(sum(line.price for line in lines), 2),
        bill_of_materials=lines,
    )
