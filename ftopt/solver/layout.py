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

from dataclasses import dataclass, field

from ftopt.solver.builds import DiskTier, Frame, RamTier
from ftopt.solver.configs import free_blocks
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


def _take(server: ServerLayout, option: Option, start: int) -> None:
    server.copies.append((option, list(range(start, start + option.gpus))))


def lay_out_frame(
    frame: Frame, heavy: list[HeavyServer], plain: int, light: list[Option]
) -> list[ServerLayout]:
    """Servers of one frame with every copy on its GPUs; empty plain servers are dropped."""
    servers: list[ServerLayout] = []
    blocks: list[_Block] = []
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
    for _ in range(plain):
        server = ServerLayout(frame, frame.ram, frame.disk)
        servers.append(server)
        blocks.append(_Block(server, 0, frame.gpu_count))
    for option in sorted(light, key=_largest_first):
        block = next(b for b in blocks if b.size - b.used >= option.gpus)
        _take(block.server, option, block.start + block.used)
        block.used += option.gpus
    return [s for s in servers if s.copies]
