"""From counts to servers: which copies share which server, and which GPU indices each copy gets.

The model decides how many servers of each build and configuration there are and how many copies
of each mode go to a build; indices are laid out afterwards. On each server, heavy copies take
the first GPUs, largest first; what remains splits into aligned power-of-two blocks. Light copies
are then dealt largest first, each to the first block with room. Sizes divide each other, so room
left in a block is always a multiple of the next copy's size: every copy starts at a multiple of
its size and never straddles an NVLink domain it fits in, and the deal succeeds whenever the
model's block-size capacities hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ftopt.solver.problem.builds import Build, DiskTier, RamTier
from ftopt.solver.problem.configs import cheapest_tier, free_blocks
from ftopt.solver.problem.modes import Mode


@dataclass
class ServerLayout:
    """One concrete server: its build, RAM and disk, and the copies it holds with their GPUs."""

    build: Build
    ram: RamTier
    disk: DiskTier
    copies: list[tuple[Mode, list[int]]] = field(default_factory=list)
    # The multi-node copy this server is one node of (solver/problem/multinode.py); a server of a
    # group that holds no copy is a hot spare of that copy.
    group: int | None = None

    @property
    def spare(self) -> bool:
        """A hot spare of its group's copy: bought and on the fabric, training nothing until a node breaks."""
        return self.group is not None and not self.copies

    def order(self) -> tuple[str, int, float, list[tuple[int, int, list[int]]]]:
        """The key `build_plan` numbers servers by (s1, s2, …); queue mode sorts its jobs' servers by
        it too, to know which number each gets."""
        return (self.build.key, self.ram.gb, self.disk.gb, [(m.run, m.gpus, g) for m, g in self.copies])


@dataclass
class HeavyServer:
    """A server of a heavy configuration, before layout."""

    ram: RamTier
    disk: DiskTier
    heavy: list[Mode]
    open_to_light: bool
    config: int | None = None  # its configuration's index, where light copies are counted per configuration


@dataclass
class Block:
    """An aligned run of `size` GPUs of one server from `start`, `used` of them dealt."""

    server: ServerLayout
    start: int
    size: int
    used: int = 0


def _largest_first(mode: Mode) -> tuple[int, int]:
    return (-mode.gpus, mode.run)


def neediest_first(mode: Mode) -> tuple[int, float, float, int]:
    """Largest first (the buddy order), and among equals the copies needing most RAM and disk per
    GPU first, so that they land on plain servers, whose blocks are dealt before heavy servers'."""
    return (-mode.gpus, -mode.host_ram_gb / mode.gpus, -mode.nvme_gb / mode.gpus, mode.run)


def take(server: ServerLayout, mode: Mode, start: int) -> None:
    server.copies.append((mode, list(range(start, start + mode.gpus))))


def lay_out_build(
    build: Build, heavy: list[HeavyServer], plain: int, light: list[Mode]
) -> list[ServerLayout]:
    """Servers of one build with every copy on its GPUs; empty plain servers are dropped."""
    servers: list[ServerLayout] = []
    blocks: list[Block] = []
    for _ in range(plain):
        server = ServerLayout(build, build.ram, build.disk)
        servers.append(server)
        blocks.append(Block(server, 0, build.slots))
    for spec in heavy:
        server, free = lay_out_heavy(build, spec)
        servers.append(server)
        blocks += free
    deal_first_fit(blocks, sorted(light, key=neediest_first))
    return [s for s in servers if s.copies]


def lay_out_heavy(build: Build, spec: HeavyServer) -> tuple[ServerLayout, list[Block]]:
    """A heavy configuration's server with its heavy copies on its first GPUs, largest first, and
    the aligned free blocks after them (none when it is closed to light copies)."""
    server = ServerLayout(build, spec.ram, spec.disk)
    start = 0
    for mode in sorted(spec.heavy, key=_largest_first):
        take(server, mode, start)
        start += mode.gpus
    blocks = []
    if spec.open_to_light:
        for size in free_blocks(build.slots, start):
            blocks.append(Block(server, start, size))
            start += size
    return server, blocks


def deal_first_fit(blocks: list[Block], copies: list[Mode]) -> bool:
    """Each copy (largest first) into the first block with room for it; False when one found none
    (the model's counts guarantee room for one deal of all light copies; a deal in phases may not).

    A block too full for a copy of g GPUs stays too full for every later copy of g GPUs, so the
    scan for one size resumes where the previous copy of that size stopped: linear in blocks and
    copies, not their product (a 2,000-copy bid has 1,500 servers).
    """
    cursor, size = 0, 0
    for mode in copies:
        if mode.gpus != size:
            cursor, size = 0, mode.gpus
        while cursor < len(blocks) and blocks[cursor].size - blocks[cursor].used < size:
            cursor += 1
        if cursor == len(blocks):
            return False
        block = blocks[cursor]
        take(block.server, mode, block.start + block.used)
        block.used += size
    return True


def spanning_copy(
    build: Build, ram: RamTier, disk: DiskTier, mode: Mode, group: int, nodes: int, spares: int
) -> list[ServerLayout]:
    """One copy over `nodes` whole servers of `build` (each holding all its GPUs for the copy) and its
    `spares` hot spare servers of the same build, RAM and disk, all of one group."""
    gpus = list(range(build.gpu_count))
    copy = [ServerLayout(build, ram, disk, [(mode, gpus)], group=group) for _ in range(nodes)]
    return copy + [ServerLayout(build, ram, disk, [], group=group) for _ in range(spares)]


def right_size(server: ServerLayout, reserve_gb: float) -> ServerLayout | None:
    """The server with the cheapest RAM and disk tiers that hold what it carries, or None if none do.

    Tiers already meet the 2 × GPU-memory and 2 TB-per-socket rules; this adds the copies' own
    offloaded states (plus the reserve) and checkpoints.
    """
    build = server.build
    ram = cheapest_tier(build.ram_upgrades, sum(m.host_ram_gb for m, _ in server.copies) + reserve_gb)
    disk = cheapest_tier(build.disk_upgrades, math.ceil(sum(m.nvme_gb for m, _ in server.copies)))
    if ram is None or disk is None:
        return None
    return ServerLayout(build, ram, disk, server.copies, server.group)


def price_of(servers: list[ServerLayout]) -> float:
    """What the servers cost as built (with `objective: tco`, plus their energy over the years)."""
    return sum(s.build.fixed_price + s.ram.price + s.disk.price + s.build.energy_cost for s in servers)
