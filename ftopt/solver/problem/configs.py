"""Heavy server configurations: which heavy copies one server holds, and the RAM and disk they need.

A copy is *heavy* on a build when its offloaded host RAM or its NVMe exceeds its GPUs' share of
the build's base RAM and disk; such copies cannot be counted into a pool, because what one server
must hold alone does not add up across servers. Instead every multiset of heavy copies that one
server of the build can hold is enumerated as a configuration, with the cheapest RAM and disk tier
for it (cutting-stock patterns; few, because heavy copies are large). Its free GPUs, in aligned
blocks, join the build's pool for light copies. Light copies that join a heavy server add their own RAM
and NVMe, which the configuration cannot know in advance: it is enumerated twice, once with no
budget for them (an optimistic relaxation, whose optimum bounds the true one from below) and once
budgeting, per free GPU, the most any light copy of the build needs (safe: every plan it yields is
valid). The peak search (`ftopt.solver.search.peak`) uses the first and turns to the second only
when a server of the first's plan needs more than its configuration bought.

Between the two lies a third list, *sized*: every RAM and disk tier worth buying for the heavy
copies, from the optimistic tier up to the safe one, each with the room it leaves beyond them. A
model that lets light copies on heavy servers draw on that room, summed over the servers of one
configuration, is still a relaxation (every valid plan meets the sums) but a far tighter one: its
optimum is a bound, and its plan is valid wherever its light copies pack server by server.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ftopt.solver.problem.builds import Build, DiskTier, RamTier, Tier
from ftopt.solver.problem.modes import Mode


@dataclass(frozen=True)
class LightBudget:
    """What a light copy of one build may need per GPU, at most."""

    host_ram_gb: float
    nvme_gb: float


@dataclass(frozen=True)
class HeavyShape:
    """What a heavy copy takes from its server; runs whose copies take the same are interchangeable."""

    gpus: int
    host_ram_gb: float
    nvme_gb: float


@dataclass(frozen=True)
class HeavyClass:
    """Heavy modes of one build that share a shape: one per run, counted together in configurations."""

    build: int
    shape: HeavyShape
    modes: tuple[int, ...]


@dataclass(frozen=True)
class HeavyConfig:
    """One server of `build` holding `heavy` (heavy class index, copies), with its RAM and disk."""

    build: int
    heavy: tuple[tuple[int, int], ...]
    ram: RamTier
    disk: DiskTier
    free_blocks: tuple[int, ...]  # aligned free GPU blocks open to light copies; () when closed
    price: float
    # Sized configurations only: host RAM and data NVMe left beyond the heavy copies (and the RAM
    # reserve), which light copies sharing the server may use; GB.
    ram_room_gb: float = 0.0
    nvme_room_gb: float = 0.0

    def capacity(self, at_least: int) -> int:
        """GPUs in free blocks of at least `at_least` cards: what light copies of that size can use."""
        return sum(block for block in self.free_blocks if block >= at_least)


def free_blocks(gpu_count: int, used: int) -> tuple[int, ...]:
    """Aligned power-of-two blocks covering GPUs used..gpu_count−1 after a largest-first layout."""
    blocks, start = [], used
    while start < gpu_count:
        size = gpu_count if start == 0 else start & -start
        while start + size > gpu_count:
            size //= 2
        blocks.append(size)
        start += size
    return tuple(blocks)


def host_ram_need(heavy_ram_gb: float, light_gpus: int, budget: LightBudget, reserve_gb: float) -> float:
    """Host RAM a server needs beyond the 2 × GPU-memory rule: offloads, light budget, reserve."""
    return heavy_ram_gb + light_gpus * budget.host_ram_gb + reserve_gb


def nvme_need(heavy_nvme_gb: float, light_gpus: int, budget: LightBudget) -> float:
    """Data NVMe a server needs: heavy copies' checkpoints and base models plus the light budget."""
    return heavy_nvme_gb + light_gpus * budget.nvme_gb


def cheapest_tier(tiers: tuple[Tier, ...], need: float) -> Tier | None:
    """The cheapest tier holding `need` (RAM or disk, GB), or None (the smaller on equal prices).

    One pass and no key function: configuration enumeration calls this a quarter of a million
    times on forty distinct offloading runs."""
    best: Tier | None = None
    for tier in tiers:
        if tier.gb >= need and (best is None or (tier.price, tier.gb) < (best.price, best.gb)):
            best = tier
    return best


def tier_finder(tiers: tuple[Tier, ...]) -> Callable[[float], Tier | None]:
    """`cheapest_tier` for one tier list, by bisection on sizes with suffix minima of the prices."""
    ordered = sorted(tiers, key=lambda t: t.gb)
    sizes = [t.gb for t in ordered]
    best: list[Tier] = []
    for tier in reversed(ordered):
        if not best or (tier.price, tier.gb) <= (best[-1].price, best[-1].gb):
            best.append(tier)
        else:
            best.append(best[-1])
    best.reverse()

    def find(need: float) -> Tier | None:
        i = bisect.bisect_left(sizes, need)
        return best[i] if i < len(best) else None

    return find


Multiset = tuple[tuple[int, int], ...]


def _multisets(
    shapes: list[tuple[int, HeavyShape]], room: int, most_ram: float, most_nvme: float
) -> Iterator[tuple[Multiset, int, float, float]]:
    """Every non-empty multiset of `shapes` whose GPUs fit `room` and whose RAM and NVMe fit the
    largest tiers, as (class index, count) pairs, with its GPUs, RAM and NVMe."""

    def extend(
        start: int, gpus: int, ram: float, nvme: float, chosen: Multiset
    ) -> Iterator[tuple[Multiset, int, float, float]]:
        if chosen:
            yield chosen, gpus, ram, nvme
        for k in range(start, len(shapes)):
            index, shape = shapes[k]
            count = 1
            while (
                gpus + count * shape.gpus <= room
                and ram + count * shape.host_ram_gb <= most_ram
                and nvme + count * shape.nvme_gb <= most_nvme
            ):
                yield from extend(
                    k + 1,
                    gpus + count * shape.gpus,
                    ram + count * shape.host_ram_gb,
                    nvme + count * shape.nvme_gb,
                    (*chosen, (index, count)),
                )
                count += 1

    yield from extend(0, 0, 0.0, 0.0, ())


def _server_multisets(
    build: Build, heavy: list[tuple[int, HeavyShape]], reserve_gb: float
) -> Iterator[tuple[Multiset, int, float, float]]:
    """`_multisets` of one build: within its GPUs and its largest RAM (less the reserve) and disk."""
    most_ram = max(t.gb for t in build.ram_upgrades) - reserve_gb
    most_nvme = max(t.gb for t in build.disk_upgrades)
    return _multisets(heavy, build.gpu_count, most_ram, most_nvme)


def worth_buying(tiers: tuple[Tier, ...], least: float, most: float) -> list[Tier]:
    """The tiers a server needing between `least` and `most` GB could buy: each larger than the one
    before and dearer (a larger tier for no more money replaces it), from the cheapest holding `least`
    to the cheapest holding `most`."""
    frontier: list[Tier] = []
    for tier in sorted(tiers, key=lambda t: (-t.gb, t.price)):
        if tier.gb >= least and (not frontier or tier.price < frontier[-1].price):
            frontier.append(tier)
    frontier.reverse()  # ascending sizes and prices
    upto = next((i for i, tier in enumerate(frontier) if tier.gb >= most), len(frontier) - 1)
    return frontier[: upto + 1]


def enumerate_configs(
    build_index: int,
    build: Build,
    heavy: list[tuple[int, HeavyShape]],
    budget: LightBudget,
    reserve_gb: float,
) -> list[HeavyConfig]:
    """All heavy configurations of one build, each with the cheapest RAM and disk that hold it."""
    configs: list[HeavyConfig] = []
    ram_for, disk_for = tier_finder(build.ram_upgrades), tier_finder(build.disk_upgrades)
    for chosen, used, ram, nvme in _server_multisets(build, heavy, reserve_gb):
        blocks = free_blocks(build.gpu_count, used)
        for light_gpus in sorted({build.gpu_count - used, 0}, reverse=True):
            ram_tier = ram_for(host_ram_need(ram, light_gpus, budget, reserve_gb))
            disk_tier = disk_for(math.ceil(nvme_need(nvme, light_gpus, budget)))
            if ram_tier is None or disk_tier is None:
                continue
            price = build.fixed_price + ram_tier.price + disk_tier.price
            config = HeavyConfig(
                build_index, chosen, ram_tier, disk_tier, blocks if light_gpus else (), price
            )
            if light_gpus == 0 and _open_twin_no_dearer(configs, chosen, price):
                continue  # the closed one is dominated
            configs.append(config)
    return configs


def _open_twin_no_dearer(configs: list[HeavyConfig], chosen: Multiset, price: float) -> bool:
    """Whether the configuration just added holds the same heavy copies with room for light ones,
    at no more than `price`: a closed twin could only ever lose to it."""
    return bool(configs) and configs[-1].heavy == chosen and configs[-1].price <= price


def enumerate_sized_configs(
    build_index: int,
    build: Build,
    heavy: list[tuple[int, HeavyShape]],
    budget: LightBudget,
    reserve_gb: float,
) -> list[HeavyConfig]:
    """All heavy configurations of one build at every RAM and disk tier worth buying, from what the
    heavy copies need alone to what the safe budget asks, each with the room it leaves: the sized
    list (module docstring). A configuration closed to light copies is listed only where no GPU is
    free: elsewhere the cheapest open one costs the same and holds more."""
    configs: list[HeavyConfig] = []
    for chosen, used, ram, nvme in _server_multisets(build, heavy, reserve_gb):
        light_gpus = build.gpu_count - used
        rams = worth_buying(
            build.ram_upgrades, ram + reserve_gb, host_ram_need(ram, light_gpus, budget, reserve_gb)
        )
        disks = worth_buying(
            build.disk_upgrades, math.ceil(nvme), math.ceil(nvme_need(nvme, light_gpus, budget))
        )
        if not rams or not disks:
            continue
        if not light_gpus:
            closed = build.fixed_price + rams[0].price + disks[0].price
            configs.append(HeavyConfig(build_index, chosen, rams[0], disks[0], (), closed))
            continue
        blocks = free_blocks(build.gpu_count, used)
        configs += [
            HeavyConfig(
                build_index,
                chosen,
                r,
                d,
                blocks,
                build.fixed_price + r.price + d.price,
                ram_room_gb=r.gb - ram - reserve_gb,
                nvme_room_gb=d.gb - nvme,
            )
            for r in rams
            for d in disks
        ]
    return configs


def needs_room(mode: Mode) -> bool:
    """Whether a light copy takes host RAM or NVMe of its own, beside its GPUs: on a heavy server of
    a sized configuration it takes from the room."""
    return mode.host_ram_gb > 0 or mode.nvme_gb > 0


def holds(config: HeavyConfig, mode: Mode) -> bool:
    """Whether one server of a sized configuration has room for one copy of a light mode."""
    return mode.host_ram_gb <= config.ram_room_gb and mode.nvme_gb <= config.nvme_room_gb
