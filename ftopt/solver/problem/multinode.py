"""Multi-node copies in the count model: their modes, their options, their counts and the fabric.

A multi-node copy (16, 32 or 64 GPUs, `ftopt.model.fabric`) takes k whole servers of one build, plus
its run's `spares` hot spare servers of the same build on the same fabric, and nothing else goes on
them, so it needs no buddy blocks: per (mode, build) the model counts copies, each worth k + spares
servers at a fixed price. Those servers carry the fabric NICs (a *networked* build:
the build with its NICs in its price and power), with the cheapest RAM and disk tiers holding each
server's share of the copy's host RAM and checkpoints.

The fabric's switches and cables are counted in the model too (`ftopt.solver.cpsat.fabric`), so
the price stays proven optimal.

Pruning, each exact: of a run's multi-node options on one build, one that costs no less, needs no
fewer ports and is no more preferred than another is dropped; and an option is dropped when a
single-server mode of the same run and card is no less preferred and a server of some build holding
that copy alone costs no more than the option's k servers (one server replaces k, their ports leave
the fabric, and fabric cost never falls as ports are removed).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from ftopt.model.fabric import (
    Network,
    fabric_kits,
    fabric_nic,
    multinode_strategies,
    nics_per_server,
    node_network,
)
from ftopt.model.failures import failure_cost
from ftopt.model.hardware import Catalogue, Nic
from ftopt.model.memory import GB, checkpoint_bytes
from ftopt.model.power import planned_load_w, supplies_carry, wall_w
from ftopt.model.rl import multinode_any_sizings, multinode_any_speed
from ftopt.model.sizing import (
    CopySetup,
    Ranker,
    RunProfile,
    Sizing,
    bound_seconds_per_token,
    gpu_count_choices,
    optimizer_choices,
)
from ftopt.model.speed import Host, Speed, at_power, hours_to_train
from ftopt.model.timing import copy_host
from ftopt.model.workload import MULTI_NODE_COUNTS, Offload, Optimizer, SizingOptions, Strategy, Workload
from ftopt.solver.problem.builds import Build, DiskTier, RamTier
from ftopt.solver.problem.configs import cheapest_tier
from ftopt.solver.problem.modes import Mode, compatible, confident_hours


@dataclass(frozen=True, kw_only=True)
class MultiNodeMode(Mode):
    """A mode whose copy spans `gpus // node_gpus` whole servers of build `build` (its deadline is met
    on that build, so it needs no power setting of its own)."""

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
    spares: int = 0  # hot spare servers of the same build, RAM and disk, on the copy's fabric

    @property
    def servers(self) -> int:
        """Servers one copy brings: its k nodes and its spares (each bought, racked, powered, cabled)."""
        return self.nodes + self.spares

    @property
    def server_price(self) -> float:
        """One of its servers, NICs included."""
        return self.build.fixed_price + self.ram.price + self.disk.price

    @property
    def price(self) -> float:
        """All servers of one copy, spares included (the fabric is priced apart)."""
        return self.servers * self.server_price

    @property
    def ports(self) -> int:
        """NIC ports one copy brings to the fabric, its spares' included (a spare takes a node's place)."""
        nic = self.build.nic
        return self.servers * self.build.nic_count * (nic.ports if nic else 0)


def networked_build(catalogue: Catalogue, build: Build, nic: Nic) -> Build | None:
    """The build with one NIC per GPU (or per NIC slot), priced and powered; None when its chassis
    has no NIC slots or the feed cannot carry the NICs too."""
    nics = nics_per_server(build.chassis, build.gpu_count)
    if nics == 0:
        return None
    load = build.load_w + nics * nic.power_w
    planned = planned_load_w(build.chassis, build.power_cap_w, build.gpu_count, load)
    power = wall_w(build.chassis, planned)
    if power > build.feed.usable_w or not supplies_carry(build.chassis, planned):
        return None
    price = build.fixed_price + catalogue.price(nic.id).amount * nics
    energy = build.energy_cost * power / build.power_w if build.power_w else 0.0  # linear in the draw
    return replace(
        build, nic=nic, nic_count=nics, fixed_price=price, power_w=power, energy_cost=energy, load_w=load
    )


def _single_server_price(catalogue: Catalogue, builds: Sequence[Build], mode: Mode) -> float | None:
    """The cheapest server of any build holding one copy of a single-server mode alone."""
    reserve = catalogue.rules.host_ram_reserve_gb
    prices = []
    for build in builds:
        if not compatible(mode, build):
            continue
        ram = cheapest_tier(build.ram_upgrades, mode.host_ram_gb + reserve)
        disk = cheapest_tier(build.disk_upgrades, mode.nvme_gb)
        if ram is not None and disk is not None:
            prices.append(build.fixed_price + ram.price + disk.price)
    return min(prices, default=None)


@dataclass(frozen=True)
class _Bid:
    """What the multi-node options of one bid are chosen from."""

    workload: Workload
    catalogue: Catalogue
    profiles: Sequence[RunProfile]
    builds: Sequence[Build]
    singles: Mapping[int, Sequence[Mode]]  # each run's single-server modes, by run index


def network_rank(profile: RunProfile, build: Build, net: Network, catalogue: Catalogue) -> Ranker:
    """Seconds per token of a multi-node configuration on servers of the networked `build`: the speed
    model's figure, or the bound a sizing gives without speed data."""

    def rank(sizing: Sizing) -> float:
        speed = speed_on_servers(profile, sizing, build, net, catalogue)
        return 1 / speed.tokens_per_s if speed is not None else bound_seconds_per_token(sizing)

    return rank


def _spanned_servers(gpus: int, per_server: int, limit: int | None) -> int | None:
    """How many whole servers a multi-node GPU count fills (at least two, within the site's limit),
    or None when it fills no such number."""
    servers = gpus // per_server
    if gpus not in MULTI_NODE_COUNTS or gpus % per_server or servers < 2:
        return None
    return None if limit is not None and servers > limit else servers


def spanning_sizings(
    profile: RunProfile,
    build: Build,
    net: Network,
    options: SizingOptions,
    limit: int | None,
    rank: Ranker | None = None,
) -> Iterator[tuple[int, Sizing]]:
    """(servers, sizing) of every copy over several whole servers of `build` that fits its cards,
    within the site's server limit (their configurations ranked by `rank`): what the multi-node
    options are made of, and what `ftopt.solver.explain.reasons` times when a deadline rules a run out."""
    for gpus in gpu_count_choices(profile.run):
        servers = _spanned_servers(gpus, build.gpu_count, limit)
        if servers is None:
            continue
        for strategy in multinode_strategies(profile.method):
            for optimizer in optimizer_choices(profile.run, profile.method, profile.stack):
                setup = CopySetup(profile, build.gpu, gpus, strategy, optimizer, Offload.NONE, options)
                for sizing in multinode_any_sizings(setup, net, profile.rollout, rank):
                    if sizing.fits:
                        yield servers, sizing


def _candidates(
    bid: _Bid, run: int, f: int, networked: Build, nic: Nic
) -> list[tuple[MultiNodeMode, MultiNodeOption]]:
    """Every fitting, timely multi-node sizing of one run on one build, with its RAM and disk tiers."""
    catalogue, profile, build = bid.catalogue, bid.profiles[run], bid.builds[f]
    net = node_network(build.gpu, build.gpu_count, nic, networked.nic_count, catalogue.speed)
    reserve = catalogue.rules.host_ram_reserve_gb
    rank = network_rank(profile, networked, net, catalogue)
    found: list[tuple[MultiNodeMode, MultiNodeOption]] = []
    spares, limit = profile.run.spares, bid.workload.site.max_servers
    for nodes, sizing in spanning_sizings(profile, build, net, bid.workload.sizing, limit, rank):
        ram = cheapest_tier(build.ram_upgrades, sizing.host_ram_gb / nodes + reserve)
        disk = cheapest_tier(build.disk_upgrades, sizing.nvme_gb / nodes)
        if ram is None or disk is None or late(profile, sizing, networked, net, catalogue, disk):
            continue
        if limit is not None and nodes + spares > limit:
            continue
        mode = MultiNodeMode(run=run, sizing=sizing, domain=0, node_gpus=build.gpu_count, build=f)
        found.append((mode, MultiNodeOption(-1, networked, nodes, ram, disk, spares)))
    return found


def _options_on(bid: _Bid, run: int, f: int, nic: Nic) -> list[tuple[MultiNodeMode, MultiNodeOption]]:
    """The undominated multi-node options of one run on one build (mode indices still unset)."""
    build = bid.builds[f]
    if build.mig is not None:  # a slice has no peer links: copies over servers take whole cards
        return []
    networked = networked_build(bid.catalogue, build, nic)
    if networked is None or bid.profiles[run].run.offload == Offload.CPU:
        return []
    singles = [m for m in bid.singles.get(run, ()) if m.gpu == build.gpu.id]
    single_prices = [(m, _single_server_price(bid.catalogue, bid.builds, m)) for m in singles]
    # Every option takes at least two networked servers and has a preference of at least 0: a
    # one-server mode of preference 0 no dearer than that beats them all before any is sized (on
    # 5,000 distinct runs, sizing them took a fifth of the build).
    floor = 2 * networked.fixed_price
    if any(p is not None and p <= floor and m.preference == 0 for m, p in single_prices):
        return []
    kept = _undominated(_candidates(bid, run, f, networked, nic))
    return [(mode, option) for mode, option in kept if not _beaten_by_single(single_prices, mode, option)]


def _undominated(
    found: list[tuple[MultiNodeMode, MultiNodeOption]],
) -> list[tuple[MultiNodeMode, MultiNodeOption]]:
    """The options no cheaper one with as few ports and as preferred a mode dominates: the others
    could only ever lose to it."""
    kept: list[tuple[MultiNodeMode, MultiNodeOption]] = []
    for mode, option in sorted(found, key=lambda p: (p[1].price, p[1].ports, p[0].preference, p[0].gpus)):
        if not any(
            k.price <= option.price and k.ports <= option.ports and km.preference <= mode.preference
            for km, k in kept
        ):
            kept.append((mode, option))
    return kept


def _beaten_by_single(
    single_prices: list[tuple[Mode, float | None]], mode: MultiNodeMode, option: MultiNodeOption
) -> bool:
    """Whether a one-server mode of the run, as preferred and no dearer, makes the option pointless."""
    return any(
        p is not None and p <= option.price and m.preference <= mode.preference for m, p in single_prices
    )


def node_host(build: Build, catalogue: Catalogue) -> Host | None:
    """What one server of a multi-node copy's host gives it: all its cores and one socket's DRAM."""
    constants = catalogue.speed
    if constants is None:
        return None
    cores = build.cpu.cores * build.chassis.sockets
    return copy_host(build.cpu.memory_channels, cores, build.gpu_count, build.gpu_count, constants)


def speed_on_servers(
    profile: RunProfile, sizing: Sizing, build: Build, net: Network, catalogue: Catalogue
) -> Speed | None:
    """The speed model's estimate of a multi-node copy on servers of `build`, their cards at the build's
    power setting (None without speed data)."""
    host, constants = node_host(build, catalogue), catalogue.speed
    if host is None or constants is None:
        return None
    speed = multinode_any_speed(profile, sizing, build.gpu, host, net, constants, catalogue.rollout)
    return at_power(speed, build.gpu, build.power_cap_w, constants) if speed is not None else None


def late(
    profile: RunProfile,
    sizing: Sizing,
    build: Build,
    net: Network,
    catalogue: Catalogue,
    disk: DiskTier | None = None,
) -> bool:
    """Whether a multi-node copy so sized would miss its run's deadline (never without one) at the
    run's deadline confidence: its hours with failures (its checkpoint written to `disk` on every one
    of its servers, its run's spares at hand; none counted without `disk` or reliability data) × its
    stack's spread factor."""
    run = profile.run
    if run.deadline_hours is None:
        return False
    hours = spanning_hours(profile, sizing, build, net, catalogue, disk)
    return hours is not None and hours > run.deadline_hours


def spanning_hours(
    profile: RunProfile,
    sizing: Sizing,
    build: Build,
    net: Network,
    catalogue: Catalogue,
    disk: DiskTier | None = None,
) -> float | None:
    """A multi-node copy's hours at its run's deadline confidence on servers of the networked
    `build`, with failures when its `disk` tier is known (None without train_tokens or speed data):
    what `late` holds to the deadline and the refusal names as the fastest over several servers."""
    tokens = profile.run.train_tokens
    speed = speed_on_servers(profile, sizing, build, net, catalogue)
    if tokens is None or speed is None:
        return None
    hours = hours_to_train(tokens, speed)
    overhead = _failure_overhead(profile, sizing, build, disk, catalogue, hours)
    return confident_hours(profile, catalogue, hours, overhead)


def _failure_overhead(
    profile: RunProfile,
    sizing: Sizing,
    build: Build,
    disk: DiskTier | None,
    catalogue: Catalogue,
    hours: float,
) -> float | None:
    """Hours added per training hour by checkpoints, lost work and restarts (ftopt.model.failures)
    for a copy over sizing.gpus // build.gpu_count servers, each writing to `disk`, with its run's
    spares standing in for broken servers."""
    reliability = catalogue.reliability
    if disk is None or reliability is None or not disk.count:
        return None
    nodes = sizing.gpus // build.gpu_count
    write_gbps = disk.drive.write_gbps * disk.count * nodes
    run = profile.run
    checkpoint = checkpoint_bytes(profile.counts, profile.method, sizing.optimizer, run.lora_rank) / GB
    return failure_cost(hours, sizing.gpus, checkpoint, write_gbps, reliability, run.spares).overhead


def multinode_options(
    workload: Workload,
    catalogue: Catalogue,
    profiles: Sequence[RunProfile],
    builds: Sequence[Build],
    singles: Sequence[Mode],
) -> list[tuple[MultiNodeMode, MultiNodeOption]]:
    """Every run's undominated multi-node options, build by build, each with its new mode (the
    option's `mode` index is set when the caller appends the mode to the problem's modes).

    A multi-node mode is compatible with no build as a light or heavy copy (its GPUs exceed any
    server's), so its copies are only ever counted through these options.
    """
    by_run: dict[int, list[Mode]] = {}
    for mode in singles:  # indexed once: a scan of every mode per run and build was quadratic
        by_run.setdefault(mode.run, []).append(mode)
    bid = _Bid(workload, catalogue, profiles, builds, by_run)
    pairs = []
    for f, build in enumerate(builds):
        nic = fabric_nic(catalogue, build.chassis)
        if nic is None or not fabric_kits(catalogue, nic):
            continue
        pairs += [pair for run in range(len(profiles)) for pair in _options_on(bid, run, f, nic)]
    return pairs
