"""From counts to servers: which copies share which server, and which GPU indices each copy gets.

The model decides how many servers of each frame and configuration there are and how many copies
of each option go to a frame; indices are laid out afterwards. On each server, heavy copies take
the first GPUs, largest first; what remains splits into aligned power-of-two blocks. Light copies
are then dealt largest first, each to the first block with room. Sizes divide each other, so room
left in a block is always a multiple of the next copy's size: every copy starts at a multiple of
its size and never straddles an NVLink domain it fits in, and the deal succeeds whenever the
model's block-size capacities hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ftopt.solver.builds import DiskTier, Frame, RamTier
from ftopt.solver.configs import cheapest_tier, free_blocks
from ftopt.solver.options import Option


@dataclass
class ServerLayout:
    """One concrete server: its frame, RAM and disk, and the copies it holds with their GPUs."""

    frame: Frame
    ram: RamTier
    disk: DiskTier
    copies: list[tuple[Option, list[int]]] = field(default_factory=list)


@dataclass
class HeavyServer:
    """A server of a heavy configuration, before layout."""

    ram: RamTier
    disk: DiskTier
    heavy: list[Option]
    open_to_light: bool


@dataclass
class _Block:
    server: ServerLayout
    start: int
    size: int
    used: int = 0


def _largest_first(option: Option) -> tuple[int, int]:
    return (-option.gpus, option.run)


def _neediest_first(option: Option) -> tuple[int, float, float, int]:
    """Largest first (the buddy order), and among equals the copies needing most RAM and disk per
    GPU first, so that they land on plain servers, whose blocks are dealt before heavy servers'."""
    return (-option.gpus, -option.host_ram_gb / option.gpus, -option.nvme_gb / option.gpus, option.run)


def _take(server: ServerLayout, option: Option, start: int) -> None:
    server.copies.append((option, list(range(start, start + option.gpus))))


def lay_out_frame(
    frame: Frame, heavy: list[HeavyServer], plain: int, light: list[Option]
) -> list[ServerLayout]:
    """Servers of one frame with every copy on its GPUs; empty plain servers are dropped."""
    servers: list[ServerLayout] = []
    blocks: list[_Block] = []
    for _ in range(plain):
        server = ServerLayout(frame, frame.ram, frame.disk)
        servers.append(server)
        blocks.append(_Block(server, 0, frame.gpu_count))
    for spec in heavy:
        server = ServerLayout(frame, spec.ram, spec.disk)
        start = 0
        for option in sorted(spec.heavy, key=_largest_first):
            _take(server, option, start)
            start += option.gpus
        if spec.open_to_light:
            for size in free_blocks(frame.gpu_count, start):
                blocks.append(_Block(server, start, size))
                start += size
        servers.append(server)
    _deal_first_fit(blocks, sorted(light, key=_neediest_first))
    return [s for s in servers if s.copies]


def _deal_first_fit(blocks: list[_Block], copies: list[Option]) -> None:
    """Each copy (largest first) into the first block with room for it.

    A block too full for a copy of g GPUs stays too full for every later copy of g GPUs, so the
    scan for one size resumes where the previous copy of that size stopped: linear in blocks and
    copies, not their product (a 2,000-copy bid has 1,500 servers).
    """
    cursor, size = 0, 0
    for option in copies:
        if option.gpus != size:
            cursor, size = 0, option.gpus
        while blocks[cursor].size - blocks[cursor].used < size:
            cursor += 1
        block = blocks[cursor]
        _take(block.server, option, block.start + block.used)
        block.used += size


def right_size(server: ServerLayout, reserve_gb: float) -> ServerLayout | None:
    """The server with the cheapest RAM and disk tiers that hold what it carries, or None if none do.

    Tiers already meet the 2 × GPU-memory and 2 TB-per-socket rules; this adds the copies' own
    offloaded states (plus the reserve) and checkpoints.
    """
    frame = server.frame
    ram = cheapest_tier(frame.ram_upgrades, sum(o.host_ram_gb for o, _ in server.copies) + reserve_gb)
    disk = cheapest_tier(frame.disk_upgrades, math.ceil(sum(o.nvme_gb for o, _ in server.copies)))
    if ram is None or disk is None:
        return None
    return ServerLayout(frame, ram, disk, server.copies)


def price_of(servers: list[ServerLayout]) -> float:
    """What the servers cost as built."""
    return sum(s.frame.fixed_price + s.ram.price + s.disk.price for s in servers)
