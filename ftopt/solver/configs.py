"""Heavy server configurations: which heavy copies one server holds, and the RAM and disk they need.

A copy is *heavy* on a frame when its offloaded host RAM or its NVMe exceeds its GPUs' share of
the frame's base RAM and disk; such copies cannot be counted into a pool, because what one server
must hold alone does not add up across servers. Instead every multiset of heavy copies that one
server of the frame can hold is enumerated as a configuration, with the cheapest RAM and disk tier
for it (cutting-stock patterns; few, because heavy copies are large). Its free GPUs, in aligned
blocks, join the frame's pool for light copies. A configuration that admits light copies budgets,
per free GPU, the most host RAM and NVMe any light copy of the frame needs per GPU; a twin without
that budget serves servers that hold heavy copies only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from ftopt.solver.builds import DiskTier, Frame, RamTier, Tier
from ftopt.solver.options import Option

#: Sizes of GPU blocks a copy may take: powers of two up to the largest server.
BLOCK_SIZES = (1, 2, 4, 8)


@dataclass(frozen=True)
class LightBudget:
    """What a light copy of one frame may need per GPU, at most."""

    host_ram_gb: float
    nvme_gb: float


@dataclass(frozen=True)
class HeavyConfig:
    """One server of `frame` holding `heavy` (option index, copies), with its RAM and disk."""

    frame: int
    heavy: tuple[tuple[int, int], ...]
    ram: RamTier
    disk: DiskTier
    free_blocks: tuple[int, ...]  # aligned free GPU blocks open to light copies; () when closed
    price: float

    def copies_of(self, option: int) -> int:
        """How many copies of `option` one such server holds."""
        return next((count for o, count in self.heavy if o == option), 0)

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


def _cheapest(tiers: tuple[Tier, ...], need: float) -> Tier | None:
    fitting = [t for t in tiers if t.gb >= need]
    return min(fitting, key=lambda t: (t.price, t.gb)) if fitting else None


def _multisets(options: list[tuple[int, Option]], room: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every non-empty multiset of `options` whose GPUs fit `room`, as (option, count) pairs."""

    def extend(
        start: int, left: int, chosen: tuple[tuple[int, int], ...]
    ) -> Iterator[tuple[tuple[int, int], ...]]:
        if chosen:
            yield chosen
        for k in range(start, len(options)):
            index, option = options[k]
            for count in range(1, left // option.gpus + 1):
                yield from extend(k + 1, left - count * option.gpus, (*chosen, (index, count)))

    yield from extend(0, room, ())


def enumerate_configs(
    frame_index: int,
    frame: Frame,
    heavy: list[tuple[int, Option]],
    budget: LightBudget,
    reserve_gb: float,
) -> list[HeavyConfig]:
    """All heavy configurations of one frame, each with the cheapest RAM and disk that hold it."""
    configs: list[HeavyConfig] = []
    for chosen in _multisets(heavy, frame.gpu_count):
        options = [
            (heavy_option, count) for index, count in chosen for i, heavy_option in heavy if i == index
        ]
        used = sum(o.gpus * n for o, n in options)
        ram = sum(o.host_ram_gb * n for o, n in options)
        nvme = sum(o.nvme_gb * n for o, n in options)
        blocks = free_blocks(frame.gpu_count, used)
        for light_gpus in sorted({frame.gpu_count - used, 0}, reverse=True):
            ram_tier = _cheapest(frame.ram_upgrades, host_ram_need(ram, light_gpus, budget, reserve_gb))
            disk_tier = _cheapest(frame.disk_upgrades, math.ceil(nvme_need(nvme, light_gpus, budget)))
            if ram_tier is None or disk_tier is None:
                continue
            price = frame.fixed_price + ram_tier.price + disk_tier.price
            config = HeavyConfig(
                frame_index, chosen, ram_tier, disk_tier, blocks if light_gpus else (), price
            )
            if light_gpus == 0 and configs and configs[-1].heavy == chosen and configs[-1].price <= price:
                continue  # open twin costs no more: the closed one is dominated
            configs.append(config)
    return configs
