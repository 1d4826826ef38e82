"""Reference solvers for the property tests: a brute force, a lower bound and a greedy upper bound.

All three read only *data* the solver also starts from: the server builds (`enumerate_builds`:
chassis, card, bridges, host and their RAM and disk tiers, after the feed and inlet filters) and
each run's sizings (`all_sizings`: memory per GPU, host RAM, NVMe). They use none of the solver's
problem reduction (`build_problem`'s pruning and light/heavy split), CP-SAT model, constraints or
variables, nor its `compatible`/`light` helpers. The rules are re-derived here from their text:

- a copy trains in one of its run's fitting sizings on an allowed card; a sharded (FSDP) copy on
  an NVLink card needs a domain of min(GPUs, the largest NVLink domain a chassis gives the card:
  its NVSwitch baseboard, else the card's largest bridge);
- a copy fits a server when the server has its card, at least its GPUs, and an NVLink domain
  (bridges or an NVSwitch baseboard) at least as large as its domain;
- a server's copies get disjoint GPUs, and a copy that needs a domain of d gets GPUs inside one
  bridge when it fits in one, else whole bridges (checked by an explicit search of GPU index
  blocks, not by summing GPU counts);
- host RAM: Σ offloaded states + the reserve ≤ the server's RAM tier; NVMe: Σ checkpoints and base
  models ≤ its disk tier; the tiers are the build's (every tier already meets the 2 × GPU memory
  and 2 TB-per-socket floors);
- at most `site.max_servers` servers; a server's price is the build's fixed price plus its RAM and
  disk tiers. Prices are summed in integer cents, like the plan's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, product

from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.sizing import CopySetup, Sizing, all_sizings, profile_run
from ftopt.model.topology import largest_domain
from ftopt.model.workload import Offload, Strategy, Workload
from ftopt.solver.problem.builds import Build, DiskTier, RamTier, enumerate_builds


@dataclass(frozen=True)
class Way:
    """One way to train one copy of a run: what it takes from a server."""

    run: int
    gpu: str
    gpus: int
    domain: int  # NVLink domain its GPUs must share; 0 when none
    host_ram_gb: float
    nvme_gb: float

    def no_worse_than(self, other: Way) -> bool:
        """Takes no more of anything: wherever `other` fits, this one fits too."""
        return (
            self.gpu == other.gpu
            and self.gpus <= other.gpus
            and self.domain <= other.domain
            and self.host_ram_gb <= other.host_ram_gb
            and self.nvme_gb <= other.nvme_gb
        )


def domain_needed(gpu: Gpu, sizing: Sizing, largest: int) -> int:
    """Sharded copies stay in one NVLink domain when one holds them, else take whole domains."""
    if sizing.strategy != Strategy.FSDP or gpu.nvlink is None or largest == 0:
        return 0
    return min(sizing.gpus, largest)


def server_domain(build: Build) -> int:
    """GPUs per NVLink domain of a server: its NVSwitch baseboard, its bridge, else 1."""
    if build.chassis.nvswitch:
        return build.gpu_count
    return build.bridge.size if build.bridge is not None else 1


@dataclass(frozen=True)
class Instance:
    """What the references work from: the builds, each run's ways, its copies and the site limit."""

    builds: tuple[Build, ...]
    ways: tuple[tuple[Way, ...], ...]  # per run, undominated for price
    copies: tuple[int, ...]  # per run
    reserve_gb: float
    max_servers: int | None

    @property
    def copy_runs(self) -> list[int]:
        """One entry per copy: the index of its run."""
        return [r for r, n in enumerate(self.copies) for _ in range(n)]


def instance(workload: Workload, catalogue: Catalogue) -> Instance:
    """The reference instance of a bid. Ways another way of the same run is no worse than are
    dropped: replacing them can only free room, so the optimum is unchanged."""
    builds = tuple(enumerate_builds(catalogue, workload).builds)
    allowed = workload.hardware.gpus
    cards = [g for g in catalogue.gpus if allowed is None or g.id in allowed]
    ways: list[tuple[Way, ...]] = []
    largest = {
        g.id: max((largest_domain(b.chassis, g) for b in builds if b.gpu.id == g.id), default=0)
        for g in cards
    }
    for r, run in enumerate(workload.runs):
        profile = profile_run(run, catalogue)
        found = {
            Way(r, gpu.id, s.gpus, domain_needed(gpu, s, largest[gpu.id]), s.host_ram_gb, s.nvme_gb)
            for gpu in cards
            if profile.stack is None or gpu.platform in profile.stack.platforms  # the stack's cards only
            for s in all_sizings(profile, gpu, workload.sizing)
            if s.fits
        }
        ordered = sorted(found, key=lambda w: (w.gpu, w.gpus, w.domain, w.host_ram_gb, w.nvme_gb))
        kept: list[Way] = []
        for way in ordered:
            if not any(k.no_worse_than(way) for k in kept):
                kept.append(way)
        ways.append(tuple(kept))
    return Instance(
        builds,
        tuple(ways),
        tuple(run.concurrent for run in workload.runs),
        catalogue.rules.host_ram_reserve_gb,
        workload.site.max_servers,
    )


def cents(amount: float) -> int:
    """A price in integer cents."""
    return round(amount * 100)


def holds(build: Build, way: Way) -> bool:
    """The server has the copy's card, enough slots, and an NVLink domain as large as its domain."""
    if way.gpu != build.gpu.id or way.gpus > build.gpu_count:
        return False
    return way.domain == 0 or server_domain(build) >= way.domain


@cache
def _gpus_place(count: int, bridge: int, needs: tuple[tuple[int, int], ...]) -> bool:
    """Whether copies needing (GPUs, domain) can take disjoint GPU blocks of a `count`-card server.

    Explicit search: each copy takes a block of consecutive indices; one with a domain requirement
    takes a block inside one bridge of `bridge` cards when it fits in one, else a block made of whole
    bridges. Contiguous blocks lose nothing here: sizes are powers of two.
    """

    def ok(start: int, gpus: int, domain: int) -> bool:
        if domain == 0:
            return True
        if gpus <= bridge:
            return start // bridge == (start + gpus - 1) // bridge
        return start % bridge == 0 and gpus % bridge == 0

    def search(i: int, free: frozenset[int]) -> bool:
        if i == len(needs):
            return True
        gpus, domain = needs[i]
        for start in range(count - gpus + 1):
            block = frozenset(range(start, start + gpus))
            if block <= free and ok(start, gpus, domain) and search(i + 1, free - block):
                return True
        return False

    return search(0, frozenset(range(count)))


def server_cents(build: Build, ways: Sequence[Way], reserve_gb: float) -> int | None:
    """Price of the cheapest server of `build` (any of its RAM and disk tiers) holding these copies."""
    if not all(holds(build, w) for w in ways):
        return None
    if sum(w.gpus for w in ways) > build.gpu_count:
        return None
    if not _gpus_place(
        build.gpu_count, server_domain(build), tuple(sorted(((w.gpus, w.domain) for w in ways), reverse=True))
    ):
        return None
    ram_need = sum(w.host_ram_gb for w in ways) + reserve_gb
    disk_need = sum(w.nvme_gb for w in ways)
    ram: list[RamTier] = [t for t in build.ram_upgrades if t.gb >= ram_need]
    disk: list[DiskTier] = [t for t in build.disk_upgrades if t.gb >= disk_need]
    if not ram or not disk:
        return None
    return cents(build.fixed_price) + min(cents(t.price) for t in ram) + min(cents(t.price) for t in disk)


def cheapest_server_cents(build: Build) -> int:
    """The least any server of this build can cost: its fixed price and its cheapest tiers."""
    return (
        cents(build.fixed_price)
        + min(cents(t.price) for t in build.ram_upgrades)
        + min(cents(t.price) for t in build.disk_upgrades)
    )


# ------------------------------------------------------------------------------------------------
# Brute force
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BruteForceResult:
    """The optimum in cents (None: no plan exists) and one optimal grouping of run indices."""

    cents: int | None
    servers: tuple[tuple[int, ...], ...] = ()


def set_partitions(items: Sequence[int], most: int) -> Iterator[list[list[int]]]:
    """Every partition of `items` (positions, so equal values are distinct copies) into ≤ `most` blocks."""

    def extend(i: int, blocks: list[list[int]]) -> Iterator[list[list[int]]]:
        if i == len(items):
            yield [list(b) for b in blocks]
            return
        for block in blocks:
            block.append(items[i])
            yield from extend(i + 1, blocks)
            block.pop()
        if len(blocks) < most:
            blocks.append([items[i]])
            yield from extend(i + 1, blocks)
            blocks.pop()

    yield from extend(0, [])


def brute_force(problem: Instance, max_copies: int = 6) -> BruteForceResult:
    """The exact optimum by enumeration: every grouping of copies into servers, every way per copy,
    every build and RAM and disk tier per server.

    A grouping has at most min(copies, site.max_servers) servers: with one copy per server at most
    as many servers as copies are ever useful, so the enumeration is exhaustive. Ways are chosen per
    server (a copy's way is independent of the other servers), so the minimum over groupings of the
    sum of each server's cheapest build is the exact optimum.
    """
    runs = problem.copy_runs
    if len(runs) > max_copies:
        raise ValueError(f"{len(runs)} copies: too many for the brute force (at most {max_copies})")
    limit = problem.max_servers
    most = len(runs) if limit is None else min(len(runs), limit)

    @cache
    def group_cents(group: tuple[int, ...]) -> int | None:
        """Cheapest server for copies of these runs (sorted run indices, repeats allowed)."""
        per_run = [(r, group.count(r)) for r in sorted(set(group))]
        choices = [list(combinations_with_replacement(problem.ways[r], n)) for r, n in per_run]
        best: int | None = None
        for picked in product(*choices):
            ways = [w for chunk in picked for w in chunk]
            for build in problem.builds:
                price = server_cents(build, ways, problem.reserve_gb)
                if price is not None and (best is None or price < best):
                    best = price
        return best

    best = BruteForceResult(None)
    for blocks in set_partitions(runs, most):
        groups = [tuple(sorted(b)) for b in blocks]
        prices = [group_cents(g) for g in groups]
        if any(p is None for p in prices):
            continue
        total = sum(p for p in prices if p is not None)
        if best.cents is None or total < best.cents:
            best = BruteForceResult(total, tuple(sorted(groups)))
    return best


# ------------------------------------------------------------------------------------------------
# Bounds
# ------------------------------------------------------------------------------------------------


def lower_bound_cents(problem: Instance) -> int | None:
    """A price no plan can beat; None when some run fits no server at all (then no plan exists).

    For each run: copies × the least, over the run's ways w and the builds f that hold w, of
    w.gpus × (the cheapest server of f) / f.gpu_count. Why it is a bound: a server of build f costs
    at least its cheapest build C_f, and the copies on it use at most f.gpu_count GPUs, so
    C_f ≥ Σ_{copies on it} gpus × C_f / f.gpu_count ≥ Σ_{copies on it} (that copy's least rate ×
    gpus). Summing over servers counts every copy once. Rounded down per run, so that rounding can
    only loosen it.
    """
    total = 0
    for r, copies in enumerate(problem.copies):
        rates = [
            w.gpus * cheapest_server_cents(f) / f.gpu_count
            for w in problem.ways[r]
            for f in problem.builds
            if holds(f, w)
        ]
        if not rates:
            return None
        total += math.floor(copies * min(rates))
    return total


@dataclass
class _OpenServer:
    build: Build
    ways: list[Way]


def first_fit_decreasing(problem: Instance) -> int | None:
    """Price in cents of a simple greedy plan, or None when the greedy finds none.

    Each run's ways are ranked by their cheapest price per GPU times GPUs (fewer GPUs first on
    ties); copies go largest first, each to the first open server that still holds it with some
    RAM and disk tier, else to a new server of the build that holds it alone most cheaply; a copy
    whose first way fits nowhere falls back to its next one. Every server's tiers are then the
    cheapest that hold what it got. The plan obeys every rule the brute force checks, so its price
    is an upper bound of the optimum whenever it respects `site.max_servers`.
    """
    reserve = problem.reserve_gb

    def rate(way: Way) -> float:
        rates = [cheapest_server_cents(f) / f.gpu_count for f in problem.builds if holds(f, way)]
        return way.gpus * min(rates) if rates else math.inf

    ranked: list[list[Way]] = []
    for ways in problem.ways:
        usable = [w for w in ways if rate(w) < math.inf]
        if not usable:
            return None
        ranked.append(sorted(usable, key=lambda w: (rate(w), w.gpus)))
    copies = sorted((ranked[r] for r in problem.copy_runs), key=lambda ways: -ways[0].gpus)
    servers: list[_OpenServer] = []
    for ways in copies:
        placed = False
        for way in ways:
            target = next(
                (s for s in servers if server_cents(s.build, [*s.ways, way], reserve) is not None),
                None,
            )
            if target is not None:
                target.ways.append(way)
                placed = True
                break
            fresh = [(p, f) for f in problem.builds if (p := server_cents(f, [way], reserve)) is not None]
            if fresh:
                _, build = min(fresh, key=lambda pf: pf[0])
                servers.append(_OpenServer(build, [way]))
                placed = True
                break
        if not placed:
            return None
    if problem.max_servers is not None and len(servers) > problem.max_servers:
        return None
    prices = [server_cents(s.build, s.ways, reserve) for s in servers]
    assert all(p is not None for p in prices), "the greedy built a server it cannot price"
    return sum(p for p in prices if p is not None)


# --- Multi-node bids (issue 14) -------------------------------------------------------------------


def _fabric_cents(catalogue: Catalogue, nic_id: str | None, ports: int) -> int | None:
    """The cheapest fabric for `ports` ports of NIC `nic_id`, by trying every switch model and every
    leaf and spine count: one leaf without spines while the ports fit it, else leaves with half their
    ports down and half up to spines that take every uplink. A DAC unit of the right kind per two links."""
    if ports == 0:
        return 0
    nic = catalogue.nic(nic_id) if nic_id else None
    best: int | None = None
    for switch in catalogue.switches:
        if nic is None or switch.port_gbits != nic.port_gbits or switch.fabric not in nic.fabrics:
            continue
        down = [c for c in catalogue.cables if c.joins == "switch-nic" and c.gbits == switch.port_gbits]
        up = [c for c in catalogue.cables if c.joins == "switch-switch" and c.gbits == switch.port_gbits]
        if not down or not up:
            continue
        unit = cents(catalogue.price(switch.id).amount)
        per_down = min(down, key=lambda c: catalogue.price(c.id).amount / c.links)
        per_up = min(up, key=lambda c: catalogue.price(c.id).amount / c.links)
        radix, half = switch.ports, switch.ports // 2
        for leaves in range(1, radix + 1):
            for spines in range(0, half + 1):
                uplinks = leaves * half if spines else 0
                fits = (spines == 0 and leaves == 1 and ports <= radix) or (
                    spines > 0 and leaves * half >= ports and spines * radix >= uplinks
                )
                if not fits:
                    continue
                price = (
                    unit * (leaves + spines)
                    + cents(catalogue.price(per_down.id).amount) * math.ceil(ports / per_down.links)
                    + cents(catalogue.price(per_up.id).amount) * math.ceil(uplinks / per_up.links)
                )
                best = price if best is None else min(best, price)
    return best


def multinode_ways(
    workload: Workload, catalogue: Catalogue, run_index: int
) -> list[tuple[int, int, int, str]]:
    """(cents, servers, NIC ports, NIC id) of every way to train one copy of a run of fixed multi-node GPU
    count: a build whose chassis has NIC slots, one NIC per GPU (≤ slots), within the feed with its
    NICs, a strategy (fsdp, hsdp) and optimiser that fit, and each server's RAM and disk tier."""
    from ftopt.model.fabric import Network, fabric_nic, intra_bus_gbps, node_bus_gbps, size_multinode
    from ftopt.model.sizing import optimizer_choices

    run = workload.runs[run_index]
    profile = profile_run(run, catalogue)
    reserve = catalogue.rules.host_ram_reserve_gb
    ways = set()
    for build in enumerate_builds(catalogue, workload).builds:
        nic = fabric_nic(catalogue, build.chassis)
        n = build.gpu_count
        nics = min(n, len(build.chassis.nic_slots))
        gpus = int(run.gpus)
        if nic is None or nics == 0 or gpus % n or gpus // n < 2:
            continue
        if profile.stack is not None and build.gpu.platform not in profile.stack.platforms:
            continue
        load = build.load_w + nics * nic.power_w
        if math.ceil(round(load / build.chassis.psu_efficiency, 6)) > build.feed.usable_w:
            continue
        if load > build.chassis.psu_capacity_w:
            continue
        net = Network(
            n, intra_bus_gbps(build.gpu, n, catalogue.speed), node_bus_gbps(nic, nics, catalogue.speed)
        )
        for strategy in (Strategy.FSDP, Strategy.HSDP):
            for optimizer in optimizer_choices(run, profile.method, profile.stack):
                sizing = size_multinode(
                    CopySetup(profile, build.gpu, gpus, strategy, optimizer, Offload.NONE, workload.sizing),
                    net,
                )
                if not sizing.fits:
                    continue
                k = gpus // n
                rams = [t for t in build.ram_upgrades if t.gb >= sizing.host_ram_gb / k + reserve]
                disks = [t for t in build.disk_upgrades if t.gb >= sizing.nvme_gb / k]
                if not rams or not disks:
                    continue
                server = (
                    cents(build.fixed_price)
                    + cents(catalogue.price(nic.id).amount) * nics
                    + min(cents(t.price) for t in rams)
                    + min(cents(t.price) for t in disks)
                )
                ways.add((k * server, k, k * nics * nic.ports, nic.id))
    return sorted(ways)


def multinode_brute_force(workload: Workload, catalogue: Catalogue) -> int | None:
    """Cents of the cheapest plan of a bid whose every run takes a fixed multi-node GPU count: every
    way for every copy (copies of a run as multisets), the servers within the site's limit, and the
    cheapest fabric for all their NIC ports; None when no plan exists."""
    per_run = []
    for r, run in enumerate(workload.runs):
        ways = multinode_ways(workload, catalogue, r)
        per_run.append(list(combinations_with_replacement(ways, run.concurrent)))
    limit = workload.site.max_servers
    best: int | None = None
    for choice in product(*per_run):
        chosen = [way for copies in choice for way in copies]
        servers = sum(w[1] for w in chosen)
        if limit is not None and servers > limit:
            continue
        nics = {w[3] for w in chosen}
        if len(nics) > 1:  # one fabric per plan: its switches take one NIC model
            continue
        fabric = _fabric_cents(catalogue, next(iter(nics), None), sum(w[2] for w in chosen))
        if fabric is None:
            continue
        total = sum(w[0] for w in chosen) + fabric
        best = total if best is None else min(best, total)
    return best
